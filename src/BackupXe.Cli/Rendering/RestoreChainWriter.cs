using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Restores;

namespace BackupXe.Cli.Rendering;

/// <summary>Each database's restore chain in the formats of the msdb verbs (docs/restore-chain.md): console lines, Markdown, JSON, HTML.</summary>
internal sealed class RestoreChainWriter : IMsdbReportWriter<RestoreChainReport>
{
    private RestoreChainWriter()
    {
    }

    public static string Title => "Restore chain";

    public static string JsonProperty => "restoreChains";

    public static void Console(TextWriter output, IReadOnlyList<RestoreChainReport> chains, DateTime since)
    {
        output.WriteLine(MsdbSpan.Heading(Title, since));
        if (chains.Count == 0)
        {
            output.WriteLine("  no full, differential or log backup in msdb since then: nothing can be restored from this history");
            return;
        }

        var width = chains.Max(c => TerminalText.Line(c.Database).Length);
        foreach (var chain in chains)
        {
            var pad = new string(' ', width + 2);
            output.WriteLine($"  {TerminalText.Line(chain.Database).PadRight(width)}  {Summary(chain)}");
            foreach (var gap in chain.Gaps)
            {
                output.WriteLine($"  {pad}gap: {Gap(gap)}");
            }

            foreach (var note in chain.Notes)
            {
                output.WriteLine($"  {pad}note: {note}");
            }
        }
    }

    public static void Markdown(TextWriter output, IReadOnlyList<RestoreChainReport> chains, DateTime since)
    {
        output.WriteLine("## " + MsdbSpan.Heading(Title, since));
        output.WriteLine();
        if (chains.Count == 0)
        {
            output.WriteLine("No full, differential or log backup in msdb since then: nothing can be restored from this history.");
            return;
        }

        foreach (var chain in chains)
        {
            output.WriteLine($"- **{TerminalText.Line(chain.Database)}**: {Summary(chain)}");
            foreach (var gap in chain.Gaps)
            {
                output.WriteLine($"  - gap: {Gap(gap)}");
            }

            foreach (var note in chain.Notes)
            {
                output.WriteLine($"  - note: {note}");
            }
        }
    }

    /// <summary>The chains as a JSON array property of an object being written (check's report, history chain's).</summary>
    public static void Json(Utf8JsonWriter json, string property, IReadOnlyList<RestoreChainReport> chains)
    {
        json.WriteStartArray(property);
        foreach (var chain in chains)
        {
            json.WriteStartObject();
            json.WriteString("database", chain.Database);
            json.WriteString("recoveryModel", chain.RecoveryModel);
            json.WriteBoolean("whole", chain.Whole);
            json.WriteStartArray("gaps");
            foreach (var gap in chain.Gaps)
            {
                json.WriteStartObject();
                json.WriteString("after", MsdbSpan.Local(gap.After));
                json.WriteString("before", MsdbSpan.Local(gap.Before));
                json.WriteString("fromLsn", gap.FromLsn.ToString(CultureInfo.InvariantCulture));
                json.WriteString("toLsn", gap.ToLsn.ToString(CultureInfo.InvariantCulture));
                json.WriteString("reason", gap.Reason);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            MsdbSpan.WriteTime(json, "oldestRestorePoint", chain.OldestRestorePoint);
            MsdbSpan.WriteTime(json, "pointInTimeFrom", chain.PointInTimeFrom);
            MsdbSpan.WriteTime(json, "pointInTimeTo", chain.PointInTimeTo);
            json.WriteStartArray("notes");
            foreach (var note in chain.Notes)
            {
                json.WriteStringValue(note);
            }

            json.WriteEndArray();
            json.WriteNumber("backupSets", chain.BackupSets);
            json.WriteEndObject();
        }

        json.WriteEndArray();
    }

    public static HtmlTextSection Html(IReadOnlyList<RestoreChainReport> chains, DateTime since)
        => new(
            "restore-chain",
            MsdbSpan.Heading(Title, since),
            chains.Count == 0 ? ["No full, differential or log backup in msdb since then: nothing can be restored from this history."] : [],
            chains.Select(chain => new HtmlTextBlock(
                chain.Database + ": " + Summary(chain),
                [],
                chain.Gaps.Count == 0 ? null : new HtmlTable(
                    "gaps",
                    [new("after"), new("before"), new("from LSN"), new("to LSN"), new("reason")],
                    chain.Gaps.Select(gap => (IReadOnlyList<HtmlCell>)
                        [new(MsdbSpan.Time(gap.After)), new(MsdbSpan.Time(gap.Before)), new(gap.FromLsn.ToString(CultureInfo.InvariantCulture)), new(gap.ToLsn.ToString(CultureInfo.InvariantCulture)), new(gap.Reason)]).ToList()),
                chain.Notes)).ToList());

    private static string Summary(RestoreChainReport chain)
    {
        var state = chain.Whole
            ? "whole"
            : chain.Gaps.Count > 0
                ? string.Create(CultureInfo.InvariantCulture, $"broken: {chain.Gaps.Count} gap(s)")
                : "cannot tell whether whole (see the note)";
        var oldest = chain.OldestRestorePoint is { } o ? $"; oldest restore point {MsdbSpan.Time(o)}" : "; no full backup, so no restore point";
        var span = chain.PointInTimeFrom is { } from && chain.PointInTimeTo is { } to ? $"; any moment from {MsdbSpan.Time(from)} to {MsdbSpan.Time(to)}" : string.Empty;
        var model = chain.RecoveryModel is { } m ? $" ({m} recovery)" : string.Empty;
        return $"{state}{model}{oldest}{span}";
    }

    private static string Gap(ChainGap gap) => string.Create(CultureInfo.InvariantCulture,
        $"from {MsdbSpan.Time(gap.After)} to {MsdbSpan.Time(gap.Before)} (LSN {gap.FromLsn} to {gap.ToLsn}): {gap.Reason}");
}
