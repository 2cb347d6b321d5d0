using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.Worker.Configuration;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// Opens an instance's ReplayPath as if it were live. Live connections need SqlClient/XELite, which this build
/// lacks; the options validator rejects them before any instance starts, so only replays arrive here.
/// </summary>
internal sealed class ReplaySourceFactory(string contentRoot, TimeProvider time) : IInstanceSourceFactory
{
    public ITraceEventSource Open(InstanceOptions instance)
    {
        if (!instance.HasReplay)
        {
            throw new InvalidOperationException($"Instance '{instance.Name}' has no ReplayPath; live connections are not available in this build.");
        }

        // Relative paths resolve against the content root, as every other path in appsettings.json does.
        var path = Path.GetFullPath(instance.ReplayPath!, contentRoot);
        return ReplayEventSource.Play(InputSources.Open(path), instance.ReplaySpeed, time);
    }
}
