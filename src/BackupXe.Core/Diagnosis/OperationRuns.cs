using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Runs of the same operation in one input compared: each completed backup or restore against the previous one of the
/// same kind, scope and database, when both moved the same data (within 1%). The ratio of their times is the finding
/// (real-world T10: the same 4.7 GB restored in 23.524 s and in 38.951 s); what differed is named when the reports say
/// (compression, stripes, buffers, target), and the side of the copy it points at otherwise. Holds what it compares of
/// one run per kind, scope and database.
/// </summary>
/// <remarks>
/// Not the report itself: a report held until the next run of its database outlived the collector's youngest
/// generation with its hundreds of progress points, and copying them on was a tenth of an ERRORLOG's analysis
/// (docs/performance.md, "ERRORLOG decisions").
/// </remarks>
internal sealed class OperationRuns(double quickOperationSeconds)
{
    /// <summary>From this ratio of times, one run is called slower; below it they ran alike.</summary>
    public const double SlowerRatio = 1.25;

    private readonly Dictionary<(OperationKind, OperationScope?, string), Run> _last = [];

    /// <summary>The comparison sentence for <paramref name="report"/> against the run before it, or null; remembers it.</summary>
    public string? Compare(OperationReport report)
    {
        ArgumentNullException.ThrowIfNull(report);
        if (report.Status != OperationStatus.Completed || report.Kind == OperationKind.Unknown || report.Snapshot is not null || report.DurationSeconds is not > 0
            || report.BytesProcessed is not > 0)
        {
            return null;
        }

        var key = (report.Kind, report.Scope, report.Database ?? string.Empty);
        _last.TryGetValue(key, out var previous);
        var run = Run.Of(report);
        _last[key] = run;
        if (previous is null)
        {
            return null;
        }

        double before = previous.Bytes, now = run.Bytes;
        if (Math.Abs(before - now) / Math.Max(before, now) > RunComparison.SameDataTolerance)
        {
            return null;
        }

        var noun = report.Kind == OperationKind.Restore ? "restore" : "backup";
        var earlier = previous.Seconds;
        var later = run.Seconds;
        var ratio = Math.Max(earlier, later) / Math.Min(earlier, later);
        var figures = string.Create(CultureInfo.InvariantCulture,
            $"Compared with the {noun} before it of the same data ({Pages(previous)} and {Pages(run)}, {Figures.Bytes((long)now)}): "
            + $"{later:0.###} s against {earlier:0.###} s ({Rate(run)} against {Rate(previous)}), ");
        if (ratio < SlowerRatio)
        {
            return figures + string.Create(CultureInfo.InvariantCulture, $"{ratio:0.00}x apart: the two runs went alike.");
        }

        var which = later > earlier ? "this run was" : "the earlier run was";
        var sentence = figures + string.Create(CultureInfo.InvariantCulture, $"{which} {ratio:0.00}x as long. ");
        var differed = Differences(previous, run);
        if (differed.Count > 0)
        {
            sentence += $"What differed: {string.Join("; ", differed)}.";
        }
        else
        {
            sentence += report.Kind == OperationKind.Restore
                ? "A restore writes the same pages to the database's files either way, so what set the runs apart is on the side of reading the backup "
                    + "(its size: an uncompressed backup is read whole, a compressed one a fraction of it; its device) or the server's load at the time; "
                    + "the input does not say what differed between them (low confidence)."
                : "A backup reads the same pages either way, so what set the runs apart is on the side of writing the backup (compression, stripes, "
                    + "buffers, the target) or the server's load at the time; the input does not say what differed between them (low confidence).";
        }

        if (Math.Max(earlier, later) < quickOperationSeconds)
        {
            sentence += string.Create(CultureInfo.InvariantCulture, $" Both ran under {quickOperationSeconds:0.0} s: not a throughput problem.");
        }

        return sentence;
    }

    private static string Pages(Run run) => run.EnginePages is { } pages
        ? string.Create(CultureInfo.InvariantCulture, $"{pages} pages")
        : Figures.Memory(run.Bytes);

    private static string Rate(Run run) => run.ThroughputMBps is { } rate
        ? rate.ToString("0.###", CultureInfo.InvariantCulture) + " MB/s"
        : "rate unknown";

    // The settings both reports name and that differ: the server's values, else the command's requested ones.
    private static List<string> Differences(Run first, Run second)
    {
        var differed = new List<string>();
        var compression = (first.Compression, second.Compression);
        if (compression is ({ } a, { } b) && a != b)
        {
            differed.Add($"compression {(a ? "on" : "off")} then {(b ? "on" : "off")}");
        }

        var devices = (first.Devices, second.Devices);
        if (devices.Item1.Count > 0 && devices.Item2.Count > 0)
        {
            if (devices.Item1.Count != devices.Item2.Count)
            {
                differed.Add(string.Create(CultureInfo.InvariantCulture, $"{devices.Item1.Count} then {devices.Item2.Count} devices"));
            }
            else if (!devices.Item1.SequenceEqual(devices.Item2, StringComparer.OrdinalIgnoreCase))
            {
                differed.Add($"the target, {string.Join(", ", devices.Item1)} then {string.Join(", ", devices.Item2)}");
            }
        }

        var buffers = (first.BufferCount, second.BufferCount);
        if (buffers is ({ } c, { } d) && c != d)
        {
            differed.Add(string.Create(CultureInfo.InvariantCulture, $"BUFFERCOUNT {c} then {d}"));
        }

        var transfer = (first.MaxTransferSizeBytes, second.MaxTransferSizeBytes);
        if (transfer is ({ } e, { } f) && e != f)
        {
            differed.Add($"MAXTRANSFERSIZE {Figures.Memory(e)} then {Figures.Memory(f)}");
        }

        return differed;
    }

    /// <summary>What a comparison reads of a completed run's report (moved bytes and seconds known).</summary>
    private sealed record Run(
        long Bytes,
        double Seconds,
        long? EnginePages,
        double? ThroughputMBps,
        bool? Compression,
        IReadOnlyList<string> Devices,
        int? BufferCount,
        long? MaxTransferSizeBytes)
    {
        public static Run Of(OperationReport report) => new(
            report.BytesProcessed!.Value,
            report.DurationSeconds!.Value,
            report.EngineSummary?.Pages,
            report.ThroughputMBps,
            report.Options?.Compression ?? report.Requested?.Compression,
            report.DevicePaths(),
            report.BufferConfig?.BufferCount ?? report.Requested?.BufferCount,
            report.BufferConfig?.MaxTransferSizeBytes ?? report.Requested?.MaxTransferSizeBytes);
    }
}
