using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Restores;

namespace BackupXe.Cli.Rendering;

/// <summary>Each database's restore estimate in the formats of the msdb verbs (docs/restore-chain.md, "Restore time"), and its one-line summary for check.</summary>
internal sealed class RestoreEstimateWriter : IMsdbReportWriter<RestoreEstimateReport>
{
    private RestoreEstimateWriter()
    {
    }

    public static string Title => "Restore estimate";

    public static string JsonProperty => "restoreEstimates";

    public const string Measured = "measured";
    public const string Assumed = "assumed";
    public const string CannotTell = "cannot tell";

    public static void Console(TextWriter output, IReadOnlyList<RestoreEstimateReport> estimates, DateTime since)
    {
        output.WriteLine(MsdbSpan.Heading(Title, since));
        if (estimates.Count == 0)
        {
            output.WriteLine("  no full, differential or log backup in msdb since then: nothing to estimate");
            return;
        }

        foreach (var report in estimates)
        {
            output.WriteLine($"  {TerminalText.Line(report.Database)}: {Total(report)}");
            output.WriteLine($"    chain: {Chain(report.Plan)}");
            output.WriteLine($"    files: {Files(report.Target)}");
            if (report.Estimate is { } estimate)
            {
                var width = estimate.Phases.Max(p => p.Phase.Length);
                var rangeWidth = estimate.Phases.Max(p => Range(p.LowSeconds, p.HighSeconds).Length);
                foreach (var phase in estimate.Phases)
                {
                    output.WriteLine($"    {phase.Phase.PadRight(width)}  {Range(phase.LowSeconds, phase.HighSeconds).PadRight(rangeWidth)}  {Kind(phase),-11}  {PhaseBytes(phase)}: {Detail(phase)}");
                }
            }

            foreach (var unknown in report.Estimate?.NotCounted ?? [])
            {
                output.WriteLine($"    not counted: {unknown.Part}: {CannotTell}: {unknown.Reason}");
            }

            foreach (var note in report.Notes)
            {
                output.WriteLine($"    note: {note}");
            }
        }
    }

    /// <summary>check's section: one line per database, the total and what it rests on; `history restore-estimate` has the phases.</summary>
    public static void Summary(TextWriter output, IReadOnlyList<RestoreEstimateReport> estimates, DateTime since)
    {
        output.WriteLine($"Restore estimate (chain from msdb backups since {MsdbSpan.Time(since)}, rates from msdb's backups; phases: backupxe history restore-estimate)");
        if (estimates.Count == 0)
        {
            output.WriteLine("  no full, differential or log backup in msdb since then: nothing to estimate");
            return;
        }

        var width = estimates.Max(e => TerminalText.Line(e.Database).Length);
        foreach (var report in estimates)
        {
            output.WriteLine($"  {TerminalText.Line(report.Database).PadRight(width)}  {Total(report)}");
        }
    }

    public static void Markdown(TextWriter output, IReadOnlyList<RestoreEstimateReport> estimates, DateTime since)
    {
        output.WriteLine("## " + MsdbSpan.Heading(Title, since));
        output.WriteLine();
        if (estimates.Count == 0)
        {
            output.WriteLine("No full, differential or log backup in msdb since then: nothing to estimate.");
            return;
        }

        foreach (var report in estimates)
        {
            output.WriteLine($"### {TerminalText.Line(report.Database)}: {Total(report)}");
            output.WriteLine();
            output.WriteLine($"- chain: {Chain(report.Plan)}");
            output.WriteLine($"- files: {Files(report.Target)}");
            output.WriteLine();
            if (report.Estimate is { } estimate)
            {
                output.WriteLine("| phase | bytes | time | basis | from |");
                output.WriteLine("|---|---|---|---|---|");
                foreach (var phase in estimate.Phases)
                {
                    output.WriteLine($"| {phase.Phase} | {PhaseBytes(phase)} | {Range(phase.LowSeconds, phase.HighSeconds)} | {Kind(phase)} | {Cell(Detail(phase))} |");
                }

                output.WriteLine();
            }

            foreach (var unknown in report.Estimate?.NotCounted ?? [])
            {
                output.WriteLine($"- not counted: {unknown.Part}: {CannotTell}: {unknown.Reason}");
            }

            foreach (var note in report.Notes)
            {
                output.WriteLine($"- note: {note}");
            }

            if (report.Notes.Count > 0 || report.Estimate?.NotCounted.Count > 0)
            {
                output.WriteLine();
            }
        }
    }

    /// <summary>The estimates as a JSON array property of an object being written (check's report, restore-estimate's).</summary>
    public static void Json(Utf8JsonWriter json, string property, IReadOnlyList<RestoreEstimateReport> estimates)
    {
        json.WriteStartArray(property);
        foreach (var report in estimates)
        {
            json.WriteStartObject();
            json.WriteString("database", report.Database);
            json.WriteStringOrNull("lastDrill", report.LastDrill);
            json.WriteStartObject("chain");
            WriteSet(json, "full", report.Plan.Full);
            WriteSet(json, "differential", report.Plan.Differential);
            json.WriteStartArray("logs");
            foreach (var log in report.Plan.Logs)
            {
                WriteSet(json, null, log);
            }

            json.WriteEndArray();
            json.WriteNumberOrNull("backupBytes", report.Plan.Bytes() is { } bytes ? bytes.FullBytes + (bytes.DifferentialBytes ?? 0) + bytes.LogBackupBytes.Sum() : null);
            json.WriteNumberOrNull("mediaBytes", report.Plan.MediaBytes());
            MsdbSpan.WriteTime(json, "reachesTo", report.Plan.ReachesTo);
            json.WriteEndObject();
            json.WriteNumberOrNull("dataFileBytes", report.Target.DataFileBytes);
            json.WriteNumberOrNull("logFileBytes", report.Target.LogFileBytes);
            json.WriteString("instantFileInitialization", Ifi(report.Target.InstantFileInitialization));
            json.WriteNumberOrNull("majorVersion", report.Target.MajorVersion);
            json.WriteStartArray("phases");
            foreach (var phase in report.Estimate?.Phases ?? [])
            {
                json.WriteStartObject();
                json.WriteString("phase", phase.Phase);
                json.WriteNumber("bytes", phase.Bytes);
                WriteSeconds(json, "lowSeconds", phase.LowSeconds);
                WriteSeconds(json, "highSeconds", phase.HighSeconds);
                json.WriteString("basis", Kind(phase));
                json.WriteString("detail", Detail(phase));
                json.WriteEndObject();
            }

            json.WriteEndArray();
            WriteSeconds(json, "lowSeconds", report.Estimate?.LowSeconds);
            WriteSeconds(json, "highSeconds", report.Estimate?.HighSeconds);
            json.WriteStartArray("notCounted");
            foreach (var unknown in report.Estimate?.NotCounted ?? [])
            {
                json.WriteStartObject();
                json.WriteString("part", unknown.Part);
                json.WriteString("reason", unknown.Reason);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteStartArray("notes");
            foreach (var note in report.Notes)
            {
                json.WriteStringValue(note);
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        json.WriteEndArray();
    }

    public static HtmlTextSection Html(IReadOnlyList<RestoreEstimateReport> estimates, DateTime since)
        => new(
            "restore-estimate",
            MsdbSpan.Heading(Title, since),
            estimates.Count == 0 ? ["No full, differential or log backup in msdb since then: nothing to estimate."] : [],
            estimates.Select(report => new HtmlTextBlock(
                report.Database + ": " + Total(report),
                ["chain: " + Chain(report.Plan), "files: " + Files(report.Target)],
                report.Estimate is not { } estimate ? null : new HtmlTable(
                    "phases",
                    [new("phase"), new("bytes", "bytes"), new("from", "lowSeconds"), new("to", "highSeconds"), new("basis"), new("detail")],
                    estimate.Phases.Select(phase => (IReadOnlyList<HtmlCell>)
                    [
                        new(phase.Phase), new(PhaseBytes(phase), phase.LowSeconds is null && phase.Bytes == 0 ? null : phase.Bytes),
                        new(Figures.Duration(phase.LowSeconds), phase.LowSeconds), new(Figures.Duration(phase.HighSeconds), phase.HighSeconds),
                        new(Kind(phase)), new(Detail(phase)),
                    ]).ToList()),
                [.. (report.Estimate?.NotCounted ?? []).Select(u => $"not counted: {u.Part}: {CannotTell}: {u.Reason}"), .. report.Notes])).ToList());

    /// <summary>One line: the total interval, or why not, and which phases rest on an assumption.</summary>
    public static string Total(RestoreEstimateReport report)
        => report.LastDrill is { } drill ? $"{RestoreEstimateText.Total(report)}; {drill}" : RestoreEstimateText.Total(report);

    private static string Chain(RestorePlan plan)
    {
        if (plan.Full is not { } full)
        {
            return "no full backup";
        }

        var parts = new List<string> { "full of " + Set(full) };
        if (plan.Differential is { } differential)
        {
            parts.Add("differential of " + Set(differential));
        }

        if (plan.Logs.Count > 0)
        {
            var logBytes = plan.Logs.All(l => l.BackupSize is not null) ? Figures.Bytes(plan.Logs.Sum(l => l.BackupSize!.Value)) : "size not known";
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"{plan.Logs.Count} log backup(s) from {MsdbSpan.Time(plan.Logs[0].Start)} to {MsdbSpan.Time(plan.Logs[^1].Finish)} ({logBytes})"));
        }
        else
        {
            parts.Add("no log backup");
        }

        var media = plan.MediaBytes() is { } m ? "; " + Figures.Bytes(m) + " to read from the backups" : string.Empty;
        return string.Join(", ", parts) + media;
    }

    private static string Set(PlannedBackup set)
    {
        var compressed = set.MediaSize is { } media && set.BackupSize is { } size && media < size ? $", {Figures.Bytes(media)} compressed" : string.Empty;
        return $"{MsdbSpan.Time(set.Start)} ({Figures.Bytes(set.BackupSize)}{compressed})";
    }

    private static string Files(RestoreTarget target)
    {
        var sizes = target.DataFileBytes is null && target.LogFileBytes is null
            ? "sizes not known"
            : $"data {Figures.Bytes(target.DataFileBytes)}, log {Figures.Bytes(target.LogFileBytes)}";
        var version = target.MajorVersion is { } v ? string.Create(CultureInfo.InvariantCulture, $"; major version {v}") : string.Empty;
        return $"{sizes}; Instant File Initialization {Ifi(target.InstantFileInitialization)}{version}";
    }

    // A phase that cannot be timed for want of a size carries no bytes: said, not shown as 0.
    private static string PhaseBytes(RestorePhaseEstimate phase) => phase.LowSeconds is null && phase.Bytes == 0 ? "size not known" : Figures.Bytes(phase.Bytes);

    private static string Ifi(bool? enabled) => enabled switch { true => "enabled", false => "disabled", null => "unknown" };

    public static string Kind(RestorePhaseEstimate phase) => phase.LowSeconds is null ? CannotTell : phase.Measured ? Measured : Assumed;

    // The basis says "assumed: ..." or "cannot tell: ..." in the model's words; the kind is its own column here.
    private static string Detail(RestorePhaseEstimate phase)
    {
        foreach (var prefix in new[] { Assumed + ": ", CannotTell + ": " })
        {
            if (phase.Basis.StartsWith(prefix, StringComparison.Ordinal))
            {
                return phase.Basis[prefix.Length..];
            }
        }

        return phase.Basis;
    }

    private static string Range(double? low, double? high) => RestoreEstimateText.Range(low, high);

    private static string Cell(string text) => TerminalText.Line(text).Replace("|", "\\|", StringComparison.Ordinal);

    private static void WriteSet(Utf8JsonWriter json, string? name, PlannedBackup? set)
    {
        if (set is null)
        {
            json.WriteNull(name!);
            return;
        }

        if (name is null)
        {
            json.WriteStartObject();
        }
        else
        {
            json.WriteStartObject(name);
        }

        json.WriteString("start", MsdbSpan.Local(set.Start));
        json.WriteString("finish", MsdbSpan.Local(set.Finish));
        json.WriteNumberOrNull("backupBytes", set.BackupSize);
        json.WriteNumberOrNull("mediaBytes", set.MediaSize);
        json.WriteEndObject();
    }

    private static void WriteSeconds(Utf8JsonWriter json, string name, double? value)
    {
        if (value is { } v)
        {
            json.WriteNumber(name, Math.Round(v, 3));
        }
        else
        {
            json.WriteNull(name);
        }
    }
}
