using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Logging;

/// <summary>Logs what happens to an instance's live connection; gaps are warnings, the rest information.</summary>
internal sealed partial class LiveSourceLog(string instance, ILogger<LiveSourceLog> logger) : ILiveSourceObserver
{
    public void OnChange(LiveSourceChange change)
    {
        // Describe() has secrets masked already (ResilientLiveSource redacts failure messages).
        switch (change)
        {
            case LiveSourceChange.EventsLost or LiveSourceChange.Stopped or LiveSourceChange.Disconnected or LiveSourceChange.Retrying:
                Warning(instance, change.Describe());
                break;
            default:
                Information(instance, change.Describe());
                break;
        }
    }

    [LoggerMessage(EventId = 160, Level = LogLevel.Information, Message = "Instance {Instance}: {Change}")]
    private partial void Information(string instance, string change);

    [LoggerMessage(EventId = 161, Level = LogLevel.Warning, Message = "Instance {Instance}: {Change}")]
    private partial void Warning(string instance, string change);
}
