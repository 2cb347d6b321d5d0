using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Analysis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>One labelled line of an operation's summary, shared by the console and Markdown renderers.</summary>
public sealed record ReportFact(string Label, string Value);

/// <summary>The summary lines every human format shows, worded once.</summary>
public static class ReportFacts
{
    /// <summary>How many of <see cref="Summary"/>'s first lines say what, when, how long and how fast: the headline.</summary>
    public const int HeadlineFacts = 3;

    /// <summary>"3 devices: D:\\a.bak, E:\\b.bak, F:\\c.bak; BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB, COMPRESSION, as requested by the job's command".</summary>
    public static string Requested(RequestedReport requested)
    {
        var parts = new List<string>();
        if (requested.Devices.Count > 0)
        {
            parts.Add($"{requested.Devices.Count} device{(requested.Devices.Count == 1 ? "" : "s")}: {string.Join(", ", requested.Devices)}");
        }

        var options = new List<string>();
        if (requested.BufferCount is { } count)
        {
            options.Add(string.Create(CultureInfo.InvariantCulture, $"BUFFERCOUNT {count}"));
        }

        if (requested.MaxTransferSizeBytes is { } size)
        {
            options.Add($"MAXTRANSFERSIZE {Figures.Bytes(size)}");
        }

        if (requested.BlockSizeBytes is { } block)
        {
            options.Add(string.Create(CultureInfo.InvariantCulture, $"BLOCKSIZE {block}"));
        }

        if (requested.Compression is { } compression)
        {
            options.Add(compression ? "COMPRESSION" : "NO_COMPRESSION");
        }

        if (requested.Checksum is { } checksum)
        {
            options.Add(checksum ? "CHECKSUM" : "NO_CHECKSUM");
        }

        if (requested.CopyOnly)
        {
            options.Add("COPY_ONLY");
        }

        parts.Add(options.Count > 0 ? string.Join(", ", options) : "no buffer or compression option (the server's defaults)");
        return $"{string.Join("; ", parts)}, as requested by {requested.Source}";
    }

    public static IReadOnlyList<ReportFact> Summary(OperationReport op)
    {
        var facts = new List<ReportFact>
        {
            new("Status", op.FailureReason is { } reason ? $"{Kebab.Of(op.Status)}: {reason}" : Kebab.Of(op.Status)),
            new("Time", op.Start is null && op.End is null
                ? op.DurationSeconds is null && op.ClientCommand is { } client
                    ? $"{Figures.Timestamp(client.Start)} to {Figures.Timestamp(client.End)} ({Figures.Duration(client.Seconds)}, the client's: {client.Source})"
                    : $"not in the input ({OperationText.Duration(op)})"
                : $"{Figures.Timestamp(op.Start)} to {Figures.Timestamp(op.End)} ({OperationText.Duration(op)})"),
            new("Throughput", Throughput(op)),
        };

        if (op.EngineSummary is { } summary)
        {
            facts.Add(new("Engine", string.Create(CultureInfo.InvariantCulture,
                $"{summary.Pages} pages in {summary.Seconds} seconds ({summary.MegabytesPerSecond} MB/sec), as the completion line says")));
        }

        if (op.PagesDumped is { } dumped)
        {
            facts.Add(new("Dumped", string.Create(CultureInfo.InvariantCulture, $"{dumped} pages ({Figures.Bytes(dumped * 8192)}), as the history line says")));
        }

        foreach (var file in op.ProcessedFiles)
        {
            facts.Add(new("File", string.Create(CultureInfo.InvariantCulture, $"{file.LogicalFile} of {file.Database}: {file.Pages} pages ({Figures.Bytes(file.Pages * 8192)})")));
        }

        if (op.UpgradeSteps > 0)
        {
            facts.Add(new("Upgrade", UpgradeStepsText.Of(op.UpgradeSteps, op.UpgradeGaps) + (op.UpgradeGaps.Count == 0 ? " after the data copy" : string.Empty)));
        }

        if (op.BufferConfig is { } buffers)
        {
            facts.Add(new("Buffers", Buffers(buffers)));
        }

        var readers = op.DataFileReaders is { } r ? $"{r} data-file reader{(r == 1 ? "" : "s")}" : "readers unknown";
        var devices = op.Devices.Count == 0 ? "devices unknown" : $"{op.Devices.Count} device{(op.Devices.Count == 1 ? "" : "s")}: {string.Join(", ", op.Devices.Select(d => d.Path))}";
        facts.Add(new("Threads", $"{readers}; {devices}"));

        if (op.Requested is { } requested)
        {
            facts.Add(new("Requested", Requested(requested)));
        }

        if (op.Options is { } options)
        {
            facts.Add(new("Options", $"checksum {OnOff(options.Checksum)}, compression {OnOff(options.Compression)}, encryption {OnOff(options.Encryption)}"));
        }

        if (op.Server is { } server)
        {
            // Why its remedies are the ones shown: they are chosen for this server.
            facts.Add(new("Server", server.Described));
        }

        foreach (var file in op.Files)
        {
            facts.Add(new("Read", $"{file.Path} in {Figures.Duration(file.Seconds)}"));
        }

        foreach (var zero in op.Zeroing)
        {
            var pages = zero.Pages is { } p ? string.Create(CultureInfo.InvariantCulture, $" ({p} pages, {Figures.Bytes(ServerRanges.SaturatingMultiply(p, 8192))})") : string.Empty;
            facts.Add(new("Zeroed", $"{zero.Path}{pages} in {Figures.Duration(zero.Seconds)}"));
        }

        foreach (var quiet in op.QuietPeriods)
        {
            facts.Add(new(QuietPeriodText.Label(quiet), QuietPeriodText.Describe(quiet)));
        }

        if (op.WaitAttribution is { } attribution)
        {
            facts.Add(new("Waits tied by", attribution switch
            {
                WaitAttribution.Session => "session_id",
                WaitAttribution.TimeOverlap => "time overlap (the waits carried no matching session_id)",
                _ => "session_id, and time overlap for waits without it",
            }));
        }

        if (op.AmbiguousWaits > 0)
        {
            facts.Add(new("Ambiguous", string.Create(CultureInfo.InvariantCulture,
                $"{op.AmbiguousWaits} wait(s) without session_id ended while other operations ran too: left out of this operation's waits")));
        }

        if (op.UnknownMessages > 0)
        {
            facts.Add(new("Unrecognised", string.Create(CultureInfo.InvariantCulture, $"{op.UnknownMessages} message(s) (shown with --verbose)")));
        }

        return facts;
    }

    /// <summary>The end-of-report lines about every operation together, worded once for the console and Markdown.</summary>
    public static IReadOnlyList<ReportFact> Totals(ReportSummary summary, AnalysisFindings findings)
    {
        var facts = new List<ReportFact>
        {
            new("Operations", string.Create(CultureInfo.InvariantCulture,
                $"{summary.Operations}: {summary.WithStatus(OperationStatus.Completed)} completed, {summary.WithStatus(OperationStatus.Failed)} failed, {summary.WithStatus(OperationStatus.Incomplete)} incomplete")),
        };

        var bottlenecks = summary.Bottlenecks();
        if (bottlenecks.Count > 0)
        {
            facts.Add(new("Bottlenecks", string.Join(", ", bottlenecks.Select(b => string.Create(CultureInfo.InvariantCulture, $"{Kebab.Of(b.Bottleneck)} {b.Operations}")))));
        }

        if (findings.AmbiguousWaits.Count > 0)
        {
            var count = findings.AmbiguousWaits.Sum(w => w.Count);
            var top = findings.AmbiguousWaits[0];
            facts.Add(new("Ambiguous waits", string.Create(CultureInfo.InvariantCulture,
                $"{count} without session_id while several operations ran (server-level; largest {top.WaitType}, {Figures.Milliseconds(top.TotalMs)})")));
        }

        if (findings.UnattributedWaits > 0)
        {
            facts.Add(new("Unattributed waits", string.Create(CultureInfo.InvariantCulture, $"{findings.UnattributedWaits} outside every operation")));
        }

        return facts;
    }

    /// <summary>
    /// "No backup or restore was found in the input: its 149 events (xel) hold no backup or restore message; backupxe
    /// events lists them.": what was read, so that an empty report is not taken for an unread input.
    /// </summary>
    public static string NothingFound(IReadOnlyList<InputReport> inputs)
    {
        var events = inputs.Sum(i => i.Events);
        if (events == 0)
        {
            return "No backup or restore was found in the input: nothing in it could be read as an event or a message.";
        }

        var formats = string.Join(", ", inputs.Select(i => i.Format).Distinct(StringComparer.Ordinal));
        return string.Create(CultureInfo.InvariantCulture,
            $"No backup or restore was found in the input: its {events:N0} events or messages ({formats}) hold no backup or restore progress message; backupxe events lists them by name.");
    }

    private static string Throughput(OperationReport op)
    {
        var text = $"{Figures.Rate(op.ThroughputMBps)} overall";
        if (op.DataCopyThroughputMBps is { } copy)
        {
            text += $", {Figures.Rate(copy)} while copying data";
        }

        text += $"; {Figures.Bytes(op.BytesProcessed)} processed";
        if (op.EstimatedBytes is { } estimate)
        {
            text += $" of {Figures.Bytes(estimate)} estimated";
        }

        return text;
    }

    private static string Buffers(BufferConfigReport b)
    {
        // BUFFERCOUNT x MAXTRANSFERSIZE is what a DBA sets; the server's total also counts every set of buffers.
        var text = $"{b.BufferCount?.ToString(CultureInfo.InvariantCulture) ?? "?"} x {Figures.Memory(b.MaxTransferSizeBytes)} (BUFFERCOUNT x MAXTRANSFERSIZE)";
        if (b.TotalBufferBytes is { } total)
        {
            text += $"; {Figures.Memory(total)} of buffer space in all";
            if (b.SetsOfBuffers is { } sets)
            {
                text += string.Create(CultureInfo.InvariantCulture, $" ({sets} sets)");
            }
        }

        if (b.MemoryLimitBytes is { } limit)
        {
            text += $"; memory limit {Figures.Memory(limit)}";
        }

        // The rest of the block as the server printed it: the media buffers may outnumber BUFFERCOUNT (S03: 128 for 64).
        if (b.MediaBufferCount is { } media)
        {
            text += string.Create(CultureInfo.InvariantCulture, $"; media buffers {media}") + (b.MediaBufferSizeBytes is { } size ? $" x {Figures.Memory(size)}" : "");
        }

        if (b.EncodeBufferCount is { } encode)
        {
            text += string.Create(CultureInfo.InvariantCulture, $"; encode buffers {encode}");
        }

        if (b.TabularDataDeviceCount is { } devices)
        {
            text += string.Create(CultureInfo.InvariantCulture, $"; tabular data devices {devices}");
        }

        return text;
    }

    private static string OnOff(bool? value) => value switch { true => "on", false => "off", null => "?" };
}
