using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Logging;

/// <summary>The daemon's fleet events (docs/fleet.md, "Change events"; docs/history.md lists the ids).</summary>
internal static partial class FleetLog
{
    [LoggerMessage(EventId = 194, Message = "Instance {Instance}: [{Database}] {Aspect} changed from {From} to {To}{SinceText}: {Evidence}")]
    public static partial void ComplianceChanged(this ILogger logger, LogLevel level, string instance, string database, string aspect, string from, string to, string sinceText, string evidence);

    [LoggerMessage(EventId = 195, Level = LogLevel.Warning, Message = "Instance {Instance}: {Note}")]
    public static partial void ReplicaRolesNotRead(this ILogger logger, string instance, string note);
}
