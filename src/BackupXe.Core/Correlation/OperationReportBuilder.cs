using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>Turns a gathered operation into its report (without the verdict, which the diagnosis adds).</summary>
internal static class OperationReportBuilder
{
    /// <summary>MB in every throughput figure is 1,048,576 bytes, as SQL Server's own "MB/sec" is.</summary>
    public const double BytesPerMegabyte = 1_048_576d;

    public static OperationReport Build(BackupOperation operation)
    {
        var status = operation.Outcome ?? OperationStatus.Incomplete;

        // Client output has no clock: its operations have the engine's own seconds and nothing else timed.
        var clock = operation.HasClock;
        var end = clock ? operation.End : null;
        var start = clock ? operation.Start : null;
        var span = Seconds(start, end);
        var duration = SpanTooShort(operation, span) ? operation.Summary!.Seconds : span ?? operation.Summary?.Seconds;
        var bytes = BytesProcessed(operation);
        var phases = clock ? operation.Phases.ToReports(start, end ?? operation.LastSeen, operation.Kind) : [];
        if (clock && operation.InMemoryLoadBegan is { } loadBegan && operation.InMemoryLoadEnded is { } loadEnded)
        {
            // In time order, as the overlapping wait-log-zero sits inside transfer-data: the load runs inside redo or recovery.
            var load = new PhaseReport(Kebab.Of(Parsing.OperationPhase.InMemoryLoad), loadBegan, loadEnded, (loadEnded - loadBegan).TotalSeconds);
            var before = phases.TakeWhile(p => !(p.Start > loadBegan)).Count();
            phases = [.. phases.Take(before), load, .. phases.Skip(before)];
        }

        // A restore of 0 pages copied nothing, and a snapshot backup's copy is the storage's: neither has a copy rate. With
        // upgrade steps printed, the restore's seconds are all upgrade and recovery, the one span the client's output gives.
        var copiedNothing = operation.IsSnapshot || (operation.Summary is { Pages: 0 } && operation.Outcome == OperationStatus.Completed);
        if (!clock && copiedNothing && operation.Kind == OperationKind.Restore && operation.UpgradeSteps > 0 && operation.Summary is { Seconds: > 0 })
        {
            phases = [new PhaseReport(Kebab.Of(Parsing.OperationPhase.Recovery), null, null, operation.Summary.Seconds)];
        }

        // Without its closing line an operation still ran at least from its first line to its last one.
        var minimum = duration is null && clock && Seconds(start ?? operation.FirstSeen, operation.LastSeen) is > 0 and var seen
            ? seen
            : (double?)null;

        return new OperationReport
        {
            Kind = operation.Kind,
            Scope = operation.Scope,
            Database = operation.Database,
            SessionId = operation.SessionId,
            Start = start,
            End = end,
            Status = status,
            DurationSeconds = duration,
            MinimumDurationSeconds = minimum,
            EstimatedBytes = operation.EstimatedBytes,
            EstimatedLogBytes = operation.LogBytesEstimate,
            BytesProcessed = bytes,
            ThroughputMBps = copiedNothing ? null : EngineRate(operation, start, end) ?? Rate(bytes, duration),
            DataCopyThroughputMBps = clock ? DataCopyRate(operation) : null,
            Devices = operation.Devices.Select(d => new DeviceReport(d)).ToList(),
            EngineSummary = operation.Summary is { } summary
                ? new EngineSummaryReport(summary.Pages, summary.Seconds, summary.MegabytesPerSecond)
                : null,
            PagesDumped = operation.PagesDumped,
            ProcessedFiles = operation.ProcessedFiles.Select(f => new ProcessedFileReport(f.Database, f.LogicalFile, f.Pages)).ToList(),
            UpgradeSteps = operation.UpgradeSteps,
            UpgradeGaps = [.. operation.UpgradeGaps],
            DataFileReaders = operation.DataFileReaders,
            BufferConfig = operation.Buffers.IsEmpty ? null : operation.Buffers.ToReport(),
            Options = operation.Checksum is null && operation.Compression is null && operation.Encryption is null
                ? null
                : new OptionsReport(operation.Checksum, operation.Compression, operation.Encryption),
            Files = operation.Files.All.Select(f => new FileReadReport(f.Path, f.Start, f.End, f.Seconds)).ToList(),
            Zeroing = operation.Zeroing.All.Select(z => new ZeroingReport(z.Path, z.Pages, z.Start, z.End, z.Seconds)).ToList(),
            Phases = phases,
            QuietPeriods = clock ? QuietPeriods(operation) : [],
            Waits = operation.Waits.ToReports(),
            WaitAttribution = operation.Waits.Attribution,
            Progress = Progress(operation),
            AmbiguousWaits = operation.AmbiguousWaits,
            FailureReason = operation.FailureReason,
            Snapshot = operation.IsSnapshot
                ? new SnapshotReport(operation.IsTsqlSnapshot ? "t-sql" : "vss", operation.FrozenAt, operation.ResumedAt, Seconds(operation.FrozenAt, operation.ResumedAt))
                : null,
            FailureError = operation.Outcome == OperationStatus.Failed ? operation.FailureError : null,
            UnknownMessages = operation.UnknownMessages,
            UnknownMessageSamples = operation.UnknownSamples.ToList(),
            Requested = operation.ClientCommand?.Requested,
            ClientCommand = operation.ClientCommand is { } client
                ? new ClientCommandReport(client.ClientStart, client.ClientEnd, client.Seconds, client.ResolutionSeconds, client.Source)
                : null,
        };
    }

    /// <summary>
    /// The server's own count wins (pages x 8 KB on completion), then "pages dumped" of the history line (the only
    /// count a SQL Server 2008 R2 trace flag 3014 log has), then the last percent line, then the throughput event's
    /// running total, then the client's per-file pages, then the size a history export gave the command (msdb's).
    /// </summary>
    private static long? BytesProcessed(BackupOperation operation)
        => operation.Summary?.Bytes
            ?? PageBytes(operation.PagesDumped)
            ?? operation.PercentBytes
            ?? (operation.ThroughputEventBytes > 0 ? operation.ThroughputEventBytes : (long?)null)
            ?? (operation.ProcessedFiles.Count > 0 ? PageBytes(operation.ProcessedFiles.Aggregate(0L, (total, f) => total > long.MaxValue - f.Pages ? long.MaxValue : total + f.Pages)) : null)
            ?? operation.ClientCommand?.Bytes;

    /// <summary>Pages are 8 KB; a count too large to be a page count of any database is no count.</summary>
    private static long? PageBytes(long? pages) => pages is >= 0 and <= long.MaxValue / 8192 ? pages * 8192 : (long?)null;

    /// <summary>
    /// Rate inside the data phase only, from its start to the last percent line seen in it, so that the
    /// checkpoint, estimation and log steps do not dilute how fast data actually moved.
    /// </summary>
    private static double? DataCopyRate(BackupOperation operation)
    {
        var begin = operation.Phases.BeginOf(operation.DataPhase);
        if (begin is null)
        {
            return null;
        }

        if (operation.LastPercentAt is { } at && operation.PercentBytes is { } moved && at > begin)
        {
            return Rate(moved, (at - begin.Value).TotalSeconds);
        }

        var end = operation.Phases.EndOf(operation.DataPhase, operation.End);
        var data = operation.DataBytesEstimate ?? operation.Summary?.Bytes;
        return Rate(data, Seconds(begin, end));
    }

    /// <summary>
    /// The finer of the two readings: the throughput event when it gave at least two points, else the percent
    /// lines. Both count from the start of the data phase, so that phase's start is the curve's 0-byte origin
    /// when it was captured and lies before the first reading.
    /// </summary>
    private static ProgressReport? Progress(BackupOperation operation)
    {
        var (source, series) = operation.ThroughputProgress.Readings >= 2
            ? ("throughput-event", operation.ThroughputProgress)
            : ("percent", operation.PercentProgress);
        var points = series.Points;
        if (points.Count == 0)
        {
            return null;
        }

        var begin = operation.Phases.BeginOf(operation.DataPhase) is { } phaseBegin && phaseBegin < points[0].At ? phaseBegin : (DateTime?)null;
        var from = begin is null ? 0 : 1;
        var values = new ProgressPoint[points.Count + from];
        if (begin is { } start)
        {
            values[0] = new ProgressPoint(start, 0);
        }

        for (var i = 0; i < points.Count; i++)
        {
            values[i + from] = points[i];
        }

        return new ProgressReport(source, new ProgressPointList(values));
    }

    /// <summary>
    /// When the only time is the engine's own elapsed seconds, its own MB/sec is the figure to show, as printed: it rates
    /// the bytes the engine moved, which pages x 8 KB over 3-decimal seconds only approximates (134.072 against the
    /// engine's 134.067; 0.211 against 0.171 for a 2-page log backup, whose page count is rounded up). The diagnosis
    /// says whether the line's figures fit together.
    /// </summary>
    private static double? EngineRate(BackupOperation operation, DateTime? start, DateTime? end)
        => operation.Summary is { } summary && (Seconds(start, end) is null || SpanTooShort(operation, Seconds(start, end))) ? summary.MegabytesPerSecond : null;

    /// <summary>
    /// A clock span well short of the engine's own elapsed seconds (a Get-DbaErrorLog table dates to the second: 0 s for
    /// the engine's 0.027 s) measures the clock, not the operation: the engine's figure is then the exact one. A log's
    /// hundredths may round a span a little under it (1322.17 s for 1322.183 s), which the span keeps.
    /// </summary>
    private static bool SpanTooShort(BackupOperation operation, double? span)
        => span is { } s && operation.Summary is { Seconds: > 0 } summary && s < summary.Seconds * 0.99;

    private static double? Seconds(DateTime? start, DateTime? end)
        => start is { } s && end is { } e && e >= s ? (e - s).TotalSeconds : null;

    private static double? Rate(long? bytes, double? seconds)
        => bytes is { } b && seconds is > 0 ? Math.Round(b / BytesPerMegabyte / seconds.Value, 3) : null;

    /// <summary>The closed quiet periods, and the one the operation ended in (or was last seen in) when long enough to name.</summary>
    private static IReadOnlyList<QuietPeriod> QuietPeriods(BackupOperation operation)
    {
        var last = operation.Flow.Ongoing(operation.End ?? operation.LastSeen);
        return last is null ? operation.Flow.Periods.ToList() : [.. operation.Flow.Periods, last with { Ongoing = operation.End is null && operation.Outcome is null }];
    }
}
