using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// Turns a captured trial into a <see cref="TrialRun"/>: the steady rate over the window (warm-up left out), the
/// buffer memory as the server reported it, and the options the server did not apply as asked.
/// </summary>
internal static class TrialMeasure
{
    /// <summary>The first tenth of a window is left out: opening the files and the first buffers are not the steady rate.</summary>
    private const double WarmUpShare = 0.10;

    public static TrialRun Of(TrialStatement statement, TrialCapture capture, Verdict? verdict, long databaseBytes)
    {
        var operation = capture.Operation;
        var (rate, window, steadiness, bytes, source) = Measure(capture, databaseBytes);
        var (differences, differ, unconfirmed, ignored) = Differences(statement, capture);
        var measures = OperationMeasures.Of(operation);
        return new TrialRun(rate, window, steadiness, bytes, measures.BufferMemoryBytes, operation.BufferConfig?.MemoryLimitBytes,
            measures.ReportedBufferRatio, verdict, differences, differ, capture.WallSeconds, capture.Finished)
        {
            Operation = operation,
            Source = source,
            Unconfirmed = unconfirmed,
            Ignored = ignored,
        };
    }

    /// <summary>
    /// The run's rate from the best source that answers: the capture's progress over the window; for a finished trial
    /// its msdb row; else percent_complete sampled over the window. None: not measured (rate 0, never used as one).
    /// </summary>
    internal static (double Rate, double Window, double Steadiness, long Bytes, RateSource Source) Measure(TrialCapture capture, long databaseBytes)
    {
        var operation = capture.Operation;
        if (Steady(operation) is { } steady)
        {
            return (steady.Rate, steady.Window, steady.Steadiness, steady.Bytes, RateSource.Progress);
        }

        if (capture.Finished && capture.History is { Bytes: > 0, Seconds: > 0 } history)
        {
            return (history.Bytes / history.Seconds / DiagnosisSettings.MegaByte, history.Seconds, 0, history.Bytes, RateSource.MsdbHistory);
        }

        if (capture.Finished && operation.BytesProcessed is > 0 and var total && operation.DurationSeconds is > 0 and var duration)
        {
            return (total / duration / DiagnosisSettings.MegaByte, duration, 0, total, RateSource.Progress);
        }

        var samples = capture.PercentSamples.OrderBy(s => s.At).ToList();
        if (samples.Count >= 2)
        {
            var span = (samples[^1].At - samples[0].At).TotalSeconds;
            var kept = samples.Where(s => (s.At - samples[0].At).TotalSeconds >= span * WarmUpShare).ToList();
            var seconds = kept.Count >= 2 ? (kept[^1].At - kept[0].At).TotalSeconds : 0;
            var share = kept.Count >= 2 ? (kept[^1].PercentComplete - kept[0].PercentComplete) / 100 : 0;
            var estimated = operation.EstimatedBytes is > 0 and var e ? e : databaseBytes;
            if (seconds > 0 && share > 0 && double.IsFinite(share))
            {
                var bytes = (long)(share * estimated);
                return (bytes / seconds / DiagnosisSettings.MegaByte, seconds, 0, (long)(kept[^1].PercentComplete / 100 * estimated), RateSource.PercentComplete);
            }
        }

        return (0, (operation.DurationSeconds ?? 0), 0, operation.BytesProcessed ?? 0, RateSource.NotMeasured);
    }

    internal static (double Rate, double Window, double Steadiness, long Bytes) Rate(OperationReport operation)
    {
        if (Steady(operation) is { } steady)
        {
            return (steady.Rate, steady.Window, steady.Steadiness, steady.Bytes);
        }

        var total = operation.BytesProcessed ?? 0;
        var duration = operation.DurationSeconds ?? 0;
        return (duration > 0 ? total / duration / DiagnosisSettings.MegaByte : 0, duration, 0, total);
    }

    /// <summary>
    /// The rate over the progress points past the warm-up, when at least two of them show bytes moving; null when the
    /// window holds too little progress to tell (a large database whose progress lines are far apart).
    /// </summary>
    private static (double Rate, double Window, double Steadiness, long Bytes)? Steady(OperationReport operation)
    {
        if (operation.Progress is { Points.Count: >= 2 } progress)
        {
            var points = progress.Points;
            var start = points[0].At;
            var span = (points[^1].At - start).TotalSeconds;
            var steady = points.Where(p => (p.At - start).TotalSeconds >= span * WarmUpShare).ToList();
            if (steady.Count >= 2 && (steady[^1].At - steady[0].At).TotalSeconds > 0 && steady[^1].Bytes > steady[0].Bytes)
            {
                var seconds = (steady[^1].At - steady[0].At).TotalSeconds;
                var rate = (steady[^1].Bytes - steady[0].Bytes) / seconds / DiagnosisSettings.MegaByte;
                var intervals = steady.Zip(steady.Skip(1))
                    .Where(pair => pair.Second.At > pair.First.At)
                    .Select(pair => (pair.Second.Bytes - pair.First.Bytes) / (pair.Second.At - pair.First.At).TotalSeconds / DiagnosisSettings.MegaByte)
                    .ToList();
                var mean = intervals.Count == 0 ? 0 : intervals.Average();
                var deviation = intervals.Count == 0 ? 0 : Math.Sqrt(intervals.Sum(r => (r - mean) * (r - mean)) / intervals.Count);
                return (rate, seconds, mean > 0 ? deviation / mean : 0, points[^1].Bytes);
            }
        }

        return null;
    }

    /// <summary>
    /// BUFFERCOUNT and MAXTRANSFERSIZE asked for against the buffer configuration the server reported (a backup's or a
    /// restore's): one line per option that differs (<c>Differ</c> set) or cannot be confirmed.
    /// </summary>
    internal static (IReadOnlyList<string> Differences, bool Differ) BufferDifferences(int? bufferCount, long? maxTransferSizeBytes, BufferConfigReport? config)
    {
        var (lines, differ, _, _) = BufferChecks(bufferCount, maxTransferSizeBytes, config);
        return (lines, differ);
    }

    private static (List<string> Lines, bool Differ, bool Unconfirmed, List<IgnoredOption> Ignored) BufferChecks(int? bufferCount, long? maxTransferSizeBytes, BufferConfigReport? config)
    {
        const string noConfig = "the buffer configuration was not captured";
        var lines = new List<string>();
        var differ = false;
        var unconfirmed = false;
        var ignored = new List<IgnoredOption>();
        if (bufferCount is { } count)
        {
            if (config?.BufferCount is not { } used)
            {
                lines.Add($"BUFFERCOUNT {Figures.Count(count)} not confirmed: {noConfig}");
                unconfirmed = true;
            }
            else if (used != count)
            {
                lines.Add($"BUFFERCOUNT asked {Figures.Count(count)}, the server used {Figures.Count(used)}");
                ignored.Add(new IgnoredOption("BUFFERCOUNT", Figures.Count(count), Figures.Count(used)));
                differ = true;
            }
        }

        if (maxTransferSizeBytes is { } size)
        {
            if (config?.MaxTransferSizeBytes is not { } used)
            {
                lines.Add($"MAXTRANSFERSIZE {Figures.Memory(size)} not confirmed: {noConfig}");
                unconfirmed = true;
            }
            else if (used != size)
            {
                lines.Add($"MAXTRANSFERSIZE asked {Figures.Memory(size)}, the server used {Figures.Memory(used)}");
                ignored.Add(new IgnoredOption("MAXTRANSFERSIZE", Figures.Memory(size), Figures.Memory(used)));
                differ = true;
            }
        }

        return (lines, differ, unconfirmed, ignored);
    }

    private static (IReadOnlyList<string> Differences, bool Differ, bool Unconfirmed, IReadOnlyList<IgnoredOption> Ignored) Differences(TrialStatement statement, TrialCapture capture)
    {
        var asked = statement.Options;
        var operation = capture.Operation;
        var config = operation.BufferConfig;
        var (lines, differ, unconfirmed, ignored) = BufferChecks(asked.BufferCount, asked.MaxTransferSizeBytes, config);

        void Check<T>(string name, T? requested, T? used, string? unknownWhy, Func<T, string> show)
            where T : struct
        {
            if (requested is not { } want)
            {
                return;
            }

            if (used is not { } got)
            {
                lines.Add($"{name} {show(want)} not confirmed: {unknownWhy}");
                unconfirmed = true;
            }
            else if (!EqualityComparer<T>.Default.Equals(want, got))
            {
                lines.Add($"{name} asked {show(want)}, the server used {show(got)}");
                ignored.Add(new IgnoredOption(name, show(want), show(got)));
                differ = true;
            }
        }

        Check("COMPRESSION", asked.Compression, operation.Options?.Compression, "the effective options were not captured", v => v ? "on" : "off");
        Check("BLOCKSIZE", asked.BlockSizeBytes, capture.EffectiveBlockSizeBytes,
            capture.Finished ? "msdb did not record the block size" : "the trial was stopped before msdb recorded its block size", v => Figures.AsPrinted(v));
        if (!statement.ToNul && operation.Devices.Count > 0 && operation.Devices.Count != statement.Devices.Count)
        {
            lines.Add($"files asked {statement.Devices.Count}, the server wrote {operation.Devices.Count}");
            ignored.Add(new IgnoredOption("files", Figures.Count(statement.Devices.Count), Figures.Count(operation.Devices.Count)));
            differ = true;
        }

        return (lines, differ, unconfirmed, ignored);
    }
}
