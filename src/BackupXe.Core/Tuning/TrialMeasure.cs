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

    public static TrialRun Of(TrialStatement statement, TrialCapture capture, Verdict? verdict)
    {
        var operation = capture.Operation;
        var (rate, window, steadiness, bytes) = Rate(operation);
        var (differences, differ) = Differences(statement, capture);
        var measures = OperationMeasures.Of(operation);
        return new TrialRun(rate, window, steadiness, bytes, measures.BufferMemoryBytes, operation.BufferConfig?.MemoryLimitBytes,
            measures.ReportedBufferRatio, verdict, differences, differ, capture.WallSeconds, capture.Finished)
        {
            Operation = operation,
        };
    }

    internal static (double Rate, double Window, double Steadiness, long Bytes) Rate(OperationReport operation)
    {
        if (operation.Progress is { Points.Count: >= 3 } progress)
        {
            var points = progress.Points;
            var start = points[0].At;
            var span = (points[^1].At - start).TotalSeconds;
            var steady = points.Where(p => (p.At - start).TotalSeconds >= span * WarmUpShare).ToList();
            if (steady.Count >= 2 && (steady[^1].At - steady[0].At).TotalSeconds > 0)
            {
                var seconds = (steady[^1].At - steady[0].At).TotalSeconds;
                var rate = (steady[^1].Bytes - steady[0].Bytes) / seconds / DiagnosisSettings.MegaByte;
                var intervals = steady.Zip(steady.Skip(1))
                    .Where(pair => pair.Second.At > pair.First.At)
                    .Select(pair => (pair.Second.Bytes - pair.First.Bytes) / (pair.Second.At - pair.First.At).TotalSeconds / DiagnosisSettings.MegaByte)
                    .ToList();
                var mean = intervals.Average();
                var deviation = Math.Sqrt(intervals.Sum(r => (r - mean) * (r - mean)) / intervals.Count);
                return (rate, seconds, mean > 0 ? deviation / mean : 0, points[^1].Bytes);
            }
        }

        var total = operation.BytesProcessed ?? 0;
        var duration = operation.DurationSeconds ?? 0;
        return (duration > 0 ? total / duration / DiagnosisSettings.MegaByte : 0, duration, 0, total);
    }

    /// <summary>
    /// BUFFERCOUNT and MAXTRANSFERSIZE asked for against the buffer configuration the server reported (a backup's or a
    /// restore's): one line per option that differs (<c>Differ</c> set) or cannot be confirmed.
    /// </summary>
    internal static (IReadOnlyList<string> Differences, bool Differ) BufferDifferences(int? bufferCount, long? maxTransferSizeBytes, BufferConfigReport? config)
    {
        const string noConfig = "the buffer configuration was not captured";
        var lines = new List<string>();
        var differ = false;
        if (bufferCount is { } count)
        {
            if (config?.BufferCount is not { } used)
            {
                lines.Add($"BUFFERCOUNT {Figures.Count(count)} not confirmed: {noConfig}");
            }
            else if (used != count)
            {
                lines.Add($"BUFFERCOUNT asked {Figures.Count(count)}, the server used {Figures.Count(used)}");
                differ = true;
            }
        }

        if (maxTransferSizeBytes is { } size)
        {
            if (config?.MaxTransferSizeBytes is not { } used)
            {
                lines.Add($"MAXTRANSFERSIZE {Figures.Memory(size)} not confirmed: {noConfig}");
            }
            else if (used != size)
            {
                lines.Add($"MAXTRANSFERSIZE asked {Figures.Memory(size)}, the server used {Figures.Memory(used)}");
                differ = true;
            }
        }

        return (lines, differ);
    }

    private static (IReadOnlyList<string> Differences, bool Differ) Differences(TrialStatement statement, TrialCapture capture)
    {
        var asked = statement.Options;
        var operation = capture.Operation;
        var config = operation.BufferConfig;
        var lines = new List<string>();
        var differ = false;

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
            }
            else if (!EqualityComparer<T>.Default.Equals(want, got))
            {
                lines.Add($"{name} asked {show(want)}, the server used {show(got)}");
                differ = true;
            }
        }

        var (buffers, buffersDiffer) = BufferDifferences(asked.BufferCount, asked.MaxTransferSizeBytes, config);
        lines.AddRange(buffers);
        differ |= buffersDiffer;
        Check("COMPRESSION", asked.Compression, operation.Options?.Compression, "the effective options were not captured", v => v ? "on" : "off");
        Check("BLOCKSIZE", asked.BlockSizeBytes, capture.EffectiveBlockSizeBytes,
            capture.Finished ? "msdb did not record the block size" : "the trial was stopped before msdb recorded its block size", v => Figures.AsPrinted(v));
        if (!statement.ToNul && operation.Devices.Count > 0 && operation.Devices.Count != statement.Devices.Count)
        {
            lines.Add($"files asked {statement.Devices.Count}, the server wrote {operation.Devices.Count}");
            differ = true;
        }

        return (lines, differ);
    }
}
