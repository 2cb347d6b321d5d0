using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Logging;

/// <summary>
/// Every event the daemon writes, with stable ids and named properties so that a log query
/// (Bottleneck = 'buffer-starved') keeps working when the wording changes.
/// </summary>
internal static partial class MonitorLog
{
    [LoggerMessage(EventId = 100, Message = "{Kind} of [{Database}] on {Instance}: {Status} in {DurationSeconds:0.#} s at {ThroughputMBps:0.#} MB/s, bottleneck {Bottleneck} ({Confidence} confidence)")]
    public static partial void OperationDiagnosed(
        this ILogger logger, LogLevel level, string kind, string? database, string instance, string status,
        double durationSeconds, double throughputMBps, string bottleneck, string confidence);

    // An operation cut off before its end (or read from a source without timing) has no duration or rate: saying so
    // beats "in null s at null MB/s".
    [LoggerMessage(EventId = 103, Message = "{Kind} of [{Database}] on {Instance}: {Status}, duration {Duration}, throughput {Throughput}, bottleneck {Bottleneck} ({Confidence} confidence)")]
    public static partial void OperationDiagnosedInPart(
        this ILogger logger, LogLevel level, string kind, string? database, string instance, string status,
        string duration, string throughput, string bottleneck, string confidence);

    [LoggerMessage(EventId = 101, Level = LogLevel.Debug, Message = "{Kind} of [{Database}] on {Instance} starting {Start:O} is already in history; not counted again")]
    public static partial void AlreadyStored(this ILogger logger, string kind, string? database, string instance, DateTime? start);

    [LoggerMessage(EventId = 102, Level = LogLevel.Debug, Message = "{Kind} of [{Database}] on {Instance} has no start time, so it cannot be told apart from others and is not stored in history")]
    public static partial void NotStored(this ILogger logger, string kind, string? database, string instance);

    [LoggerMessage(EventId = 110, Level = LogLevel.Warning, Message = "{Kind} of [{Database}] on {Instance} ran at {ThroughputMBps:0} MB/s, {PercentOfMedian:0}% of its recent median {MedianThroughputMBps:0} MB/s over {Samples} operations")]
    public static partial void ThroughputRegressed(
        this ILogger logger, string kind, string? database, string instance, double throughputMBps,
        double percentOfMedian, double medianThroughputMBps, int samples);

    /// <summary>Event 110 said from the comparison that found the regression (<see cref="History.StoredBaselines.Regression"/>).</summary>
    public static void ThroughputRegressed(this ILogger logger, string kind, string? database, string instance, Core.Reporting.BaselineComparisonReport regression)
    {
        if (regression is { ThroughputMBps: { } rate, MedianMBps: { } median })
        {
            logger.ThroughputRegressed(kind, database, instance, rate, 100 * rate / median, median, regression.UsualRuns);
        }
    }

    /// <summary>Event 111, the operation against its history; see <see cref="HistoryCompared"/>.</summary>
    public static readonly EventId HistoryComparedEvent = new(111, nameof(HistoryCompared));

    /// <summary>
    /// Event 111: a figure the comparison lacks (no factor nor "since" while it cannot tell, no first change when no
    /// setting changed) is left out of the sentence and of the properties, instead of printed as "null". Built by hand,
    /// not generated: a generated message has one fixed template.
    /// </summary>
    public static void HistoryCompared(
        this ILogger logger, string kind, string? database, string instance, string historyVerdict, double? historyFactor,
        DateTime? slowSince, double? medianThroughputMBps, int usualRuns, string? topChange, int overlapsOnTarget, string historySummary)
    {
        if (!logger.IsEnabled(LogLevel.Information))
        {
            return;
        }

        var clauses = new List<string>();
        var values = new List<object?> { kind, database, instance, historyVerdict };
        void Add(string clause, params object?[] clauseValues)
        {
            clauses.Add(clause);
            values.AddRange(clauseValues);
        }

        if (historyFactor is { } factor)
        {
            Add("factor {HistoryFactor:0.0}", factor);
        }

        if (slowSince is { } since)
        {
            Add("since {SlowSince:O}", since);
        }

        if (medianThroughputMBps is { } median)
        {
            Add("median {MedianThroughputMBps:0.#} MB/s of {UsualRuns} usual runs", median, usualRuns);
        }
        else
        {
            Add("{UsualRuns} usual runs", usualRuns);
        }

        if (topChange is not null)
        {
            Add("first change {TopChange}", topChange);
        }

        Add("{OverlapsOnTarget} overlaps on its target", overlapsOnTarget);
        values.Add(historySummary);
        var template = "{Kind} of [{Database}] on {Instance} against its history: {HistoryVerdict} (" + string.Join(", ", clauses) + "): {HistorySummary}";
#pragma warning disable CA2254 // The template is one of a few fixed variants, each with named properties.
        logger.Log(LogLevel.Information, HistoryComparedEvent, template, [.. values]);
#pragma warning restore CA2254
    }

    // The ETA when the stall is named: while it lasts that is the ETA from before it, which the stall pushes back.
    [LoggerMessage(EventId = 180, Level = LogLevel.Warning, Message = "{Kind} of [{Database}] on {Instance} (session {SessionId}) stalled: no bytes moved for {QuietSeconds:0} s in {Phase} since {QuietSince:O} (seen after the bytes moved again: {SeenAfterwards}); {LookAt}; ETA {Eta}")]
    public static partial void OperationStalled(
        this ILogger logger, string kind, string? database, string instance, int? sessionId, double quietSeconds, string? phase,
        DateTime quietSince, bool seenAfterwards, string lookAt, string eta);

    [LoggerMessage(EventId = 184, Level = LogLevel.Information, Message = "{Kind} of [{Database}] on {Instance} (session {SessionId}): {Percent}% done at {ThroughputMBps} MB/s, ETA {RemainingLowSeconds:0} s to {RemainingHighSeconds:0} s ({EtaBasis})")]
    public static partial void OperationEta(
        this ILogger logger, string kind, string? database, string instance, int? sessionId, int? percent, double? throughputMBps,
        double remainingLowSeconds, double remainingHighSeconds, string etaBasis);

    [LoggerMessage(EventId = 181, Level = LogLevel.Information, Message = "{Kind} of [{Database}] on {Instance} (session {SessionId}) has moved no bytes for {QuietSeconds:0} s in {Phase} since {QuietSince:O}, as expected: {Reason}")]
    public static partial void ExpectedWait(
        this ILogger logger, string kind, string? database, string instance, int? sessionId, double quietSeconds, string? phase,
        DateTime quietSince, string reason);

    [LoggerMessage(EventId = 120, Level = LogLevel.Error, Message = "Instance {Instance} failed ({ErrorType}: {Error}); retrying in {RetryDelaySeconds} s")]
    public static partial void InstanceFailed(this ILogger logger, string instance, string errorType, string error, double retryDelaySeconds);

    [LoggerMessage(EventId = 121, Level = LogLevel.Debug, Message = "Instance {Instance} failure detail: {ErrorDetail}")]
    public static partial void InstanceFailureDetail(this ILogger logger, string instance, string errorDetail);

    [LoggerMessage(EventId = 130, Level = LogLevel.Warning, Message = "Instance {Instance}: {Source} at {Location}: {Problem}")]
    public static partial void SourceProblem(this ILogger logger, string instance, string source, string location, string problem);

    [LoggerMessage(EventId = 140, Level = LogLevel.Information, Message = "Instance {Instance}: reading {Source} ({Format})")]
    public static partial void SourceOpened(this ILogger logger, string instance, string source, string format);

    [LoggerMessage(EventId = 141, Level = LogLevel.Information, Message = "Instance {Instance}: finished reading {Source} ({Events} events)")]
    public static partial void ReplayFinished(this ILogger logger, string instance, string source, long events);

    [LoggerMessage(EventId = 142, Level = LogLevel.Warning, Message = "Instance {Instance}: the stream {Source} ended; reopening in {RetryDelaySeconds} s")]
    public static partial void LiveStreamEnded(this ILogger logger, string instance, string source, double retryDelaySeconds);

    [LoggerMessage(EventId = 160, Level = LogLevel.Critical, Message = "The daemon stopped on an unexpected error ({ErrorType}: {Error})")]
    public static partial void DaemonFailed(this ILogger logger, string errorType, string error);

    [LoggerMessage(EventId = 150, Level = LogLevel.Information, Message = "Every configured instance has been read to its end; the daemon stays up until stopped")]
    public static partial void AllInstancesFinished(this ILogger logger);

    [LoggerMessage(EventId = 170, Level = LogLevel.Information, Message = "Instance {Instance}: history import read {Read} backups since {Since:yyyy-MM-dd HH:mm}: {Added} added, {Merged} merged with known ones, {Unchanged} already there")]
    public static partial void HistoryImported(this ILogger logger, string instance, int read, DateTime since, int added, int merged, int unchanged);

    [LoggerMessage(EventId = 171, Level = LogLevel.Warning, Message = "Instance {Instance}: history import failed ({ErrorType}: {Error}); next try in {IntervalMinutes} min")]
    public static partial void HistoryImportFailed(this ILogger logger, string instance, string errorType, string error, double intervalMinutes);

    [LoggerMessage(EventId = 190, Level = LogLevel.Warning, Message = "Instance {Instance}: the restore chain of [{Database}] is broken from {GapAfter:yyyy-MM-dd HH:mm} to {GapBefore:yyyy-MM-dd HH:mm} (LSN {FromLsn} to {ToLsn}): {Reason}")]
    public static partial void RestoreChainGap(this ILogger logger, string instance, string database, DateTime gapAfter, DateTime gapBefore, string fromLsn, string toLsn, string reason);

    [LoggerMessage(EventId = 191, Level = LogLevel.Warning, Message = "Instance {Instance}: the restore chain could not be checked ({ErrorType}: {Error}); next try with the next import")]
    public static partial void RestoreChainFailed(this ILogger logger, string instance, string errorType, string error);

    [LoggerMessage(EventId = 192, Level = LogLevel.Information, Message = "Instance {Instance}: restoring [{Database}] now would take {RestoreEstimate} (fastest {LowSeconds:0} s, slowest {HighSeconds:0} s); chain from the full backup of {FullBackupStart:yyyy-MM-dd HH:mm}, differential {DifferentialStart:yyyy-MM-dd HH:mm}, {LogBackups} log backup(s); {Notes} note(s)")]
    public static partial void RestoreEstimated(this ILogger logger, string instance, string database, string restoreEstimate, double? lowSeconds, double? highSeconds, DateTime? fullBackupStart, DateTime? differentialStart, int logBackups, int notes);

    [LoggerMessage(EventId = 193, Level = LogLevel.Warning, Message = "Instance {Instance}: the restore estimate could not be made ({ErrorType}: {Error}); next try with the next import")]
    public static partial void RestoreEstimateFailed(this ILogger logger, string instance, string errorType, string error);

    [LoggerMessage(EventId = 182, Level = LogLevel.Warning, Message = "{Kind} of [{Database}] on {Instance} (session {SessionId}) stalled in {Phase}: current wait {WaitType} for {WaitMs} ms, last wait {LastWaitType} (sys.dm_exec_requests at {ServerUtc:O})")]
    public static partial void StallCurrentWait(this ILogger logger, string kind, string? database, string instance, int sessionId, string? phase, string? waitType, long waitMs, string? lastWaitType, DateTime serverUtc);

    [LoggerMessage(EventId = 183, Level = LogLevel.Information, Message = "{Kind} of [{Database}] on {Instance} (session {SessionId}) stalled in {Phase}; its current wait could not be read: {Reason}")]
    public static partial void StallWaitUnknown(this ILogger logger, string kind, string? database, string instance, int sessionId, string? phase, string reason);

    [LoggerMessage(EventId = 200, Level = LogLevel.Information, Message = "Instance {Instance}: capture window until {ArmedUntil:O}: session {SessionName} {Armed}")]
    public static partial void CaptureArmed(this ILogger logger, string instance, DateTimeOffset armedUntil, string sessionName, string armed);

    [LoggerMessage(EventId = 201, Level = LogLevel.Warning, Message = "Instance {Instance}: session {SessionName} not started for the capture window until {ArmedUntil:O}, nothing changed on the server: {Problem}")]
    public static partial void CaptureRefused(this ILogger logger, string instance, string sessionName, DateTimeOffset armedUntil, string problem);

    [LoggerMessage(EventId = 202, Level = LogLevel.Information, Message = "Instance {Instance}: the capture window ended at {WindowEnd:O} but {Running} backup or restore request(s) still run (session {SessionId}: {Command} of [{Database}]); session {SessionName} stays armed and is read until none runs")]
    public static partial void CaptureKeptArmed(this ILogger logger, string instance, DateTimeOffset windowEnd, int running, int sessionId, string command, string? database, string sessionName);

    [LoggerMessage(EventId = 203, Level = LogLevel.Warning, Message = "Instance {Instance}: the capture window ended but whether a backup still runs could not be read ({Reason}); session {SessionName} stays armed, checked again in {CheckSeconds} s")]
    public static partial void CaptureRunningUnknown(this ILogger logger, string instance, string reason, string sessionName, double checkSeconds);

    [LoggerMessage(EventId = 204, Level = LogLevel.Information, Message = "Instance {Instance}: session {SessionName} stopped after its capture window ({ArmedMinutes:0.#} min armed); next window armed at {NextArm:O}")]
    public static partial void CaptureDisarmed(this ILogger logger, string instance, string sessionName, double armedMinutes, DateTimeOffset? nextArm);

    [LoggerMessage(EventId = 205, Level = LogLevel.Information, Message = "Instance {Instance}: session {SessionName} left running after its capture window: BackupXe did not start it")]
    public static partial void CaptureLeftRunning(this ILogger logger, string instance, string sessionName);

    [LoggerMessage(EventId = 206, Level = LogLevel.Warning, Message = "Instance {Instance}: session {SessionName} runs outside its capture windows and was not started by this daemon: left alone, and not read before the next window at {NextArm:O}")]
    public static partial void CaptureRunningOutsideWindow(this ILogger logger, string instance, string sessionName, DateTimeOffset? nextArm);

    [LoggerMessage(EventId = 207, Level = LogLevel.Warning, Message = "Instance {Instance}: the capture window's session {SessionName} could not be {Step} ({ErrorType}: {Error}); next try in {RetrySeconds} s")]
    public static partial void CaptureFailed(this ILogger logger, string instance, string sessionName, string step, string errorType, string error, double retrySeconds);

    [LoggerMessage(EventId = 208, Level = LogLevel.Warning, Message = "Instance {Instance}: the daemon is stopping while its capture window's session {SessionName} runs and {Reason}: left running; a DBA stops it with ALTER EVENT SESSION {QuotedName} ON SERVER STATE = STOP;")]
    public static partial void CaptureLeftAtShutdown(this ILogger logger, string instance, string sessionName, string reason, string quotedName);
}
