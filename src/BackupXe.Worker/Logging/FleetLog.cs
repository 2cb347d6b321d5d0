using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Logging;

/// <summary>The daemon's fleet events (docs/fleet.md, "Change events"; docs/history.md lists the ids).</summary>
internal static partial class FleetLog
{
    [LoggerMessage(EventId = 194, Message = "Instance {Instance}: [{Database}] {Aspect} changed from {From} to {To}{SinceText}: {Evidence}")]
    public static partial void ComplianceChanged(this ILogger logger, LogLevel level, string instance, string database, string aspect, string from, string to, string sinceText, string evidence);

    [LoggerMessage(EventId = 195, Level = LogLevel.Warning, Message = "Instance {Instance}: {Note}")]
    public static partial void ReplicaRolesNotRead(this ILogger logger, string instance, string note);

    [LoggerMessage(EventId = 209, Level = LogLevel.Warning, Message = "Instance {Instance}: {Note}")]
    public static partial void MsdbRestoresNotRead(this ILogger logger, string instance, string note);

    [LoggerMessage(EventId = 196, Level = LogLevel.Information, Message = "Instance {Instance}: held by {Holder} until {ExpiresAt:yyyy-MM-dd HH:mm:ss} (store time, UTC): another daemon polls it; this one tries again")]
    public static partial void LeaseHeldElsewhere(this ILogger logger, string instance, string holder, DateTime? expiresAt);

    [LoggerMessage(EventId = 197, Level = LogLevel.Information, Message = "Instance {Instance}: lease taken by {Holder} until {ExpiresAt:yyyy-MM-dd HH:mm:ss} (store time, UTC): this daemon polls it")]
    public static partial void LeaseTaken(this ILogger logger, string instance, string holder, DateTime? expiresAt);

    [LoggerMessage(EventId = 198, Level = LogLevel.Warning, Message = "Instance {Instance}: lease lost (now held by {Holder}): this daemon stops polling it")]
    public static partial void LeaseLost(this ILogger logger, string instance, string? holder);

    [LoggerMessage(EventId = 199, Level = LogLevel.Warning, Message = "Instance {Instance}: the central store's lease could not be read or written ({ErrorType}: {Error})")]
    public static partial void LeaseStoreFailed(this ILogger logger, string instance, string errorType, string error);

    [LoggerMessage(EventId = 189, Level = LogLevel.Warning, Message = "Instance {Instance}: the central store has no dbo.instance_leases (its script predates migration 4): polled without a lease, so another daemon sharing the store may poll it too")]
    public static partial void LeaseTableMissing(this ILogger logger, string instance);
}
