using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Logging;

/// <summary>The daemon's restore drill events (docs/configuration.md, "Restore drill windows"), ids 220 to 227.</summary>
internal static partial class DrillLog
{
    [LoggerMessage(EventId = 220, Level = LogLevel.Information, Message = "Instance {Instance}: restore drill of [{Database}] on {Target} completed into [{Scratch}]: restore and recovery {RestoreSeconds:0.#} s, {TotalSeconds:0.#} s in all; left on the server: {LeftBehind}")]
    public static partial void DrillCompleted(this ILogger logger, string instance, string database, string target, string scratch, double restoreSeconds, double totalSeconds, string leftBehind);

    [LoggerMessage(EventId = 221, Level = LogLevel.Warning, Message = "Instance {Instance}: restore drill of [{Database}] on {Target} refused, nothing ran: {Refusals}")]
    public static partial void DrillRefused(this ILogger logger, string instance, string database, string target, string refusals);

    [LoggerMessage(EventId = 222, Level = LogLevel.Warning, Message = "Instance {Instance}: restore drill of [{Database}] on {Target} failed: {Failure}; left on the server: {LeftBehind}")]
    public static partial void DrillFailed(this ILogger logger, string instance, string database, string target, string failure, string leftBehind);

    [LoggerMessage(EventId = 223, Level = LogLevel.Warning, Message = "Instance {Instance}: restore drill of [{Database}] on {Target} stopped {Cause}: {Failure}; left on the server: {LeftBehind}")]
    public static partial void DrillStopped(this ILogger logger, string instance, string database, string target, string cause, string failure, string leftBehind);

    [LoggerMessage(EventId = 224, Level = LogLevel.Error, Message = "Instance {Instance}: the restore drill of [{Database}] left a scratch database on {Target}: {LeftBehind}")]
    public static partial void DrillLeftBehind(this ILogger logger, string instance, string database, string target, string leftBehind);

    [LoggerMessage(EventId = 225, Level = LogLevel.Warning, Message = "Instance {Instance}: restore drill of [{Database}] on {Target} could not run ({ErrorType}: {Error}); next try in the next window")]
    public static partial void DrillNotRun(this ILogger logger, string instance, string database, string target, string errorType, string error);

    [LoggerMessage(EventId = 226, Level = LogLevel.Warning, Message = "Instance {Instance}: the last completed restore drills could not be read from the history ({ErrorType}: {Error}); their age is measured again from the next completed drill")]
    public static partial void DrillHistoryNotRead(this ILogger logger, string instance, string errorType, string error);

    [LoggerMessage(EventId = 227, Level = LogLevel.Error, Message = "The restore drills stopped on an unexpected error ({ErrorType}: {Error}); the rest of the daemon runs on")]
    public static partial void DrillsFailed(this ILogger logger, string errorType, string error);
}
