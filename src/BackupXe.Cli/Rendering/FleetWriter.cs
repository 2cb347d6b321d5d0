using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Fleet;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;

namespace BackupXe.Cli.Rendering;

/// <summary>The fleet judged at one moment (UTC), worst first.</summary>
internal sealed record FleetPage(DateTime At, IReadOnlyList<DatabaseCompliance> Databases)
{
    public int Instances => Databases.Select(d => d.Instance).Distinct(StringComparer.OrdinalIgnoreCase).Count();

    public int OutOfTarget => Databases.Count(d => d.OutOfTarget);
}

/// <summary><c>backupxe fleet</c>'s three forms: a console table with the evidence of each database not in order, JSON, a self-contained HTML page.</summary>
internal static class FleetWriter
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public static string Console(FleetPage page)
    {
        var text = new StringBuilder();
        text.AppendLine(Headline(page));
        if (page.Databases.Count == 0)
        {
            return text.ToString();
        }

        string[] header = ["Instance", "Database", "Model", "Last full", "Last diff", "Last log", "RPO", "RPO target", "RTO", "RTO target", "Chain", "Restored"];
        var rows = page.Databases.Select(d => new[]
        {
            TerminalText.Line(d.Instance), TerminalText.Line(d.Database), d.RecoveryModel ?? "?",
            Taken(d, d.LastFull, d.LastFullOn), Taken(d, d.LastDifferential, d.LastDifferentialOn), Taken(d, d.LastLog, d.LastLogOn),
            Figure(d.Rpo), Target(d.Rpo), Figure(d.Rto), Target(d.Rto), Kebab.Of(d.Chain.State), d.Verification.Verified ? Stamp(d.Verification.Since) : "never",
        }).ToList();
        var widths = header.Select((h, i) => Math.Max(h.Length, rows.Max(r => r[i].Length))).ToArray();
        text.AppendLine(string.Join("  ", header.Select((h, i) => h.PadRight(widths[i]))).TrimEnd());
        foreach (var row in rows)
        {
            text.AppendLine(string.Join("  ", row.Select((cell, i) => cell.PadRight(widths[i]))).TrimEnd());
        }

        foreach (var database in page.Databases.Where(d => d.OutOfTarget || d.Chain.State is ChainState.Broken or ChainState.Gap
            || d.Rpo.State == ComplianceState.CannotTell || d.Rto.State == ComplianceState.CannotTell || !d.Verification.Verified || d.OffPreference.Count > 0))
        {
            text.AppendLine();
            text.AppendLine($"[{TerminalText.Line(database.Database)}] on {TerminalText.Line(database.Instance)}{(database.GroupDatabaseId is null ? string.Empty : " (availability group replicas)")}");
            text.AppendLine($"  RPO    {Said(database.Rpo)}");
            text.AppendLine($"  RTO    {Said(database.Rto)}");
            text.AppendLine($"  chain  {Kebab.Of(database.Chain.State)}{Since(database.Chain.Since)}: {TerminalText.Line(database.Chain.Evidence)}");
            text.AppendLine($"  tried  {TerminalText.Line(database.Verification.Evidence)}");
            foreach (var note in database.OffPreference)
            {
                text.AppendLine($"  where  {TerminalText.Line(note)}");
            }
        }

        return text.ToString();
    }

    public static string Json(FleetPage page)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            json.WriteStartObject();
            json.WriteString("at", page.At);
            json.WriteNumber("instances", page.Instances);
            json.WriteNumber("outOfTarget", page.OutOfTarget);
            json.WriteStartArray("databases");
            foreach (var d in page.Databases)
            {
                json.WriteStartObject();
                json.WriteString("instance", d.Instance);
                json.WriteString("database", d.Database);
                WriteOrNull(json, "recoveryModel", d.RecoveryModel);
                WriteTime(json, "lastFull", d.LastFull);
                WriteTime(json, "lastDifferential", d.LastDifferential);
                WriteTime(json, "lastLog", d.LastLog);
                json.WriteStartArray("replicas");
                foreach (var replica in d.Replicas)
                {
                    json.WriteStringValue(replica);
                }

                json.WriteEndArray();
                WriteOrNull(json, "groupDatabaseId", d.GroupDatabaseId?.ToString("D"));
                WriteOrNull(json, "lastFullOn", d.LastFullOn);
                WriteOrNull(json, "lastDifferentialOn", d.LastDifferentialOn);
                WriteOrNull(json, "lastLogOn", d.LastLogOn);
                WriteOrNull(json, "backupPreference", d.BackupPreference);
                json.WriteStartArray("replicaRoles");
                foreach (var role in d.ReplicaRoles)
                {
                    json.WriteStartObject();
                    json.WriteString("instance", role.Instance);
                    json.WriteString("group", role.GroupName);
                    WriteOrNull(json, "role", role.Role);
                    if (role.BackupPriority is { } priority)
                    {
                        json.WriteNumber("backupPriority", priority);
                    }
                    else
                    {
                        json.WriteNull("backupPriority");
                    }

                    if (role.Preferred is { } preferred)
                    {
                        json.WriteBoolean("preferred", preferred);
                    }
                    else
                    {
                        json.WriteNull("preferred");
                    }

                    WriteTime(json, "readAt", role.ReadAt);
                    json.WriteEndObject();
                }

                json.WriteEndArray();
                json.WriteStartArray("offPreference");
                foreach (var note in d.OffPreference)
                {
                    json.WriteStringValue(note);
                }

                json.WriteEndArray();
                Finding(json, "rpo", d.Rpo);
                Finding(json, "rto", d.Rto);
                json.WriteStartObject("chain");
                json.WriteString("state", Kebab.Of(d.Chain.State));
                WriteTime(json, "since", d.Chain.Since);
                json.WriteString("evidence", d.Chain.Evidence);
                json.WriteEndObject();
                json.WriteStartObject("restored");
                json.WriteBoolean("ever", d.Verification.Verified);
                WriteTime(json, "since", d.Verification.Since);
                json.WriteString("evidence", d.Verification.Evidence);
                json.WriteEndObject();
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        return Encoding.UTF8.GetString(buffer.ToArray()) + Environment.NewLine;
    }

    /// <summary>One page with its styles and its chart (inline SVG) inside: no script, nothing fetched.</summary>
    public static string Html(FleetPage page)
    {
        var html = new StringBuilder();
        html.AppendLine("<!DOCTYPE html>");
        html.AppendLine("<html lang=\"en\"><head><meta charset=\"utf-8\"><title>BackupXe fleet</title>");
        html.AppendLine("<style>body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}td,th{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
            + ".outside{background:#fde2e1}.cannot-tell{background:#fff4d6}.within{background:#e3f4e1}.no-target{background:#f2f2f2}small{color:#555}</style>");
        html.AppendLine("</head><body>");
        html.AppendLine($"<h1>{E(Headline(page))}</h1>");
        html.Append(Chart(page));
        html.AppendLine("<table><thead><tr><th>Instance</th><th>Database</th><th>Model</th><th>Last full</th><th>Last diff</th><th>Last log</th><th>RPO</th><th>RTO</th><th>Chain</th><th>Restored</th><th>Backup replica</th></tr></thead><tbody>");
        foreach (var d in page.Databases)
        {
            html.Append("<tr>")
                .Append($"<td>{E(d.Instance)}</td><td>{E(d.Database)}</td><td>{E(d.RecoveryModel ?? "?")}</td>")
                .Append($"<td>{E(Taken(d, d.LastFull, d.LastFullOn))}</td><td>{E(Taken(d, d.LastDifferential, d.LastDifferentialOn))}</td><td>{E(Taken(d, d.LastLog, d.LastLogOn))}</td>")
                .Append($"<td class=\"{Kebab.Of(d.Rpo.State)}\">{E(Figure(d.Rpo))} / {E(Target(d.Rpo))}<br><small>{E(Said(d.Rpo))}</small></td>")
                .Append($"<td class=\"{Kebab.Of(d.Rto.State)}\">{E(Figure(d.Rto))} / {E(Target(d.Rto))}<br><small>{E(Said(d.Rto))}</small></td>")
                .Append($"<td>{E(Kebab.Of(d.Chain.State))}{E(Since(d.Chain.Since))}<br><small>{E(d.Chain.Evidence)}</small></td>")
                .Append($"<td>{E(d.Verification.Verified ? Stamp(d.Verification.Since) : "never")}<br><small>{E(d.Verification.Evidence)}</small></td>")
                .Append(d.OffPreference.Count > 0 ? $"<td class=\"cannot-tell\">{string.Join("<br>", d.OffPreference.Select(E))}</td>" : "<td></td>")
                .AppendLine("</tr>");
        }

        html.AppendLine("</tbody></table>");
        html.AppendLine("</body></html>");
        return html.ToString();
    }

    /// <summary>Each database's RPO as a share of its target, a bar each, the target a line at 100% (capped at 300%).</summary>
    private static string Chart(FleetPage page)
    {
        var judged = page.Databases.Where(d => d.Rpo.Ratio is not null).ToList();
        if (judged.Count == 0)
        {
            return string.Empty;
        }

        const int Bar = 18, Label = 260, Width = 420;
        var svg = new StringBuilder();
        svg.AppendLine(string.Create(Invariant, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{Label + Width + 60}\" height=\"{judged.Count * Bar + 24}\" role=\"img\" aria-label=\"RPO against its target\">"));
        for (var i = 0; i < judged.Count; i++)
        {
            var d = judged[i];
            var share = Math.Min(3, d.Rpo.Ratio!.Value);
            var y = i * Bar + 4;
            svg.AppendLine(string.Create(Invariant,
                $"<text x=\"0\" y=\"{y + 13}\" font-size=\"12\">{E($"{d.Instance} / {d.Database}")}</text><rect x=\"{Label}\" y=\"{y}\" width=\"{share / 3 * Width:0.#}\" height=\"{Bar - 4}\" fill=\"{(d.Rpo.State == ComplianceState.Outside ? "#d9534f" : "#5cb85c")}\"/><text x=\"{Label + share / 3 * Width + 4:0.#}\" y=\"{y + 13}\" font-size=\"12\">{d.Rpo.Ratio.Value * 100:0}%</text>"));
        }

        svg.AppendLine(string.Create(Invariant, $"<line x1=\"{Label + Width / 3.0:0.#}\" x2=\"{Label + Width / 3.0:0.#}\" y1=\"0\" y2=\"{judged.Count * Bar + 8}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>"));
        svg.AppendLine(string.Create(Invariant, $"<text x=\"{Label + Width / 3.0 + 4:0.#}\" y=\"{judged.Count * Bar + 20}\" font-size=\"11\">RPO target</text>"));
        svg.AppendLine("</svg>");
        return svg.ToString();
    }

    private static string Headline(FleetPage page)
        => string.Create(Invariant, $"Fleet at {page.At:yyyy-MM-dd HH:mm} UTC: {Figures.Plural(page.Databases.Count, "database", "databases")} on {Figures.Plural(page.Instances, "instance", "instances")}, {page.OutOfTarget} out of target");

    private static string Said(RecoveryFinding finding)
        => $"{Kebab.Of(finding.State)}: {Figure(finding)} against {Target(finding)}{(finding.Target is { } t ? $" ({t.From})" : string.Empty)}{Since(finding.Since)}; {TerminalText.Line(finding.Evidence)}";

    private static string Figure(RecoveryFinding finding)
        => finding.Value is { } value ? (finding.Floor ? ">= " : string.Empty) + Figures.Duration(value.TotalSeconds) : "?";

    private static string Target(RecoveryFinding finding) => finding.Target is { } target ? Figures.Duration(target.Value.TotalSeconds) : "none";

    private static string Since(DateTime? at) => at is { } value ? " since " + Stamp(value) : string.Empty;

    /// <summary>A backup's time, and for an availability group database the replica that took it.</summary>
    private static string Taken(DatabaseCompliance database, DateTime? at, string? on)
        => database.GroupDatabaseId is not null && at is not null && on is not null ? $"{Stamp(at)} @{TerminalText.Line(on)}" : Stamp(at);

    private static string Stamp(DateTime? at) => at is { } value ? value.ToString("yyyy-MM-dd HH:mm", Invariant) : "-";

    private static string E(string text) => WebUtility.HtmlEncode(text);

    private static void Finding(Utf8JsonWriter json, string name, RecoveryFinding finding)
    {
        json.WriteStartObject(name);
        json.WriteString("state", Kebab.Of(finding.State));
        WriteSeconds(json, "seconds", finding.Value);
        json.WriteBoolean("atLeast", finding.Floor);
        WriteSeconds(json, "targetSeconds", finding.Target?.Value);
        WriteOrNull(json, "targetFrom", finding.Target?.From);
        WriteTime(json, "since", finding.Since);
        json.WriteString("evidence", finding.Evidence);
        WriteOrNull(json, "source", finding.Source is { } source ? Kebab.Of(source) : null);
        json.WriteEndObject();
    }

    private static void WriteSeconds(Utf8JsonWriter json, string name, TimeSpan? value)
    {
        if (value is { } span)
        {
            json.WriteNumber(name, Math.Round(span.TotalSeconds, 3));
        }
        else
        {
            json.WriteNull(name);
        }
    }

    private static void WriteTime(Utf8JsonWriter json, string name, DateTime? value)
    {
        if (value is { } at)
        {
            json.WriteString(name, DateTime.SpecifyKind(at, DateTimeKind.Utc));
        }
        else
        {
            json.WriteNull(name);
        }
    }

    private static void WriteOrNull(Utf8JsonWriter json, string name, string? value)
    {
        if (value is null)
        {
            json.WriteNull(name);
        }
        else
        {
            json.WriteString(name, value);
        }
    }
}
