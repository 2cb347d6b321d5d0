using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Drill;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Restores;

namespace BackupXe.Cli.Rendering;

/// <summary>restore-drill's report (docs/commands/restore-drill.md): the plan, and with --execute each phase as measured; console, markdown, JSON (docs/json-schema.md, "restore-drill") and HTML; the measured tables come from <see cref="DrillTables"/>.</summary>
internal static class RestoreDrillWriter
{
    public static void Write(TextWriter output, string format, RestoreDrillPlan plan, RestoreDrillResult? result, StoredDrill? previous)
    {
        switch (format)
        {
            case "json":
                Json(output, plan, result, previous);
                break;
            case "markdown":
                Markdown(output, plan, result, previous);
                break;
            case "html":
                var html = new HtmlReportWriter(output, $"BackupXe restore drill of [{plan.Database}] on {plan.TargetServer}");
                html.WriteTextSection(Html(plan, result, previous));
                html.Finish(null);
                break;
            default:
                Console(output, plan, result, previous);
                break;
        }
    }

    /// <summary>"measured on DATE (restore drill): the drill's time", what restore-estimate shows beside the estimate.</summary>
    public static string MeasuredOn(StoredDrill drill)
    {
        ArgumentNullException.ThrowIfNull(drill);
        return $"measured on {drill.DrilledAt.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture)} by a restore drill into [{drill.Scratch}]: {Figures.Duration(drill.RestoreSeconds)}";
    }

    private static void Console(TextWriter output, RestoreDrillPlan plan, RestoreDrillResult? result, StoredDrill? previous)
    {
        output.WriteLine($"Restore drill of [{Line(plan.Database)}] from {Line(plan.SourceServer)} into [{Line(plan.Scratch)}] on {Line(plan.TargetServer)}");
        output.WriteLine($"  source    {Line(plan.SourceServer)}: {Line(plan.SourceIdentity?.ToString() ?? "?")}");
        output.WriteLine($"  target    {Line(plan.TargetServer)}: {Line(plan.TargetIdentity?.ToString() ?? "?")}");
        if (plan.StopAt is { } stop)
        {
            output.WriteLine($"  stop at   {stop.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} (source server local time)");
        }

        output.WriteLine("  backups, in the order restored:");
        foreach (var backup in plan.Backups)
        {
            output.WriteLine($"    {backup.Kind,-12} {backup.Set.Start.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)}  {Figures.Bytes(backup.Set.BackupSize),9}  FILE = {backup.Position.ToString(CultureInfo.InvariantCulture)}  {Line(string.Join(", ", backup.Devices))}");
        }

        output.WriteLine("  files, each moved (WITH MOVE, never REPLACE):");
        foreach (var move in plan.Moves)
        {
            output.WriteLine($"    {Line(move.LogicalName)} ({move.Type}, {Figures.Bytes(move.SizeBytes)}) -> {Line(move.Path)}");
        }

        output.WriteLine("  space:");
        foreach (var space in plan.Space)
        {
            output.WriteLine($"    {Line(space.Folder)}: needs {Figures.Bytes(space.NeededBytes)}, {(space.AvailableBytes is { } free ? Figures.Bytes(free) + " free" : "free space cannot be told: " + space.Unknown)}{(space.Short ? " (too little)" : string.Empty)}");
        }

        output.WriteLine("  permissions:");
        foreach (var permission in plan.Permissions)
        {
            output.WriteLine($"    {permission}");
        }

        if (plan.Estimate is { } estimate)
        {
            output.WriteLine($"  estimate  {RestoreEstimateText.Total(estimate)}");
        }

        if (previous is not null)
        {
            output.WriteLine($"  last drill {MeasuredOn(previous)}");
        }

        foreach (var refusal in plan.Refusals)
        {
            output.WriteLine($"  refused: {Line(refusal)}");
        }

        foreach (var note in plan.Notes)
        {
            output.WriteLine($"  note: {Line(note)}");
        }

        output.WriteLine(result is null ? "  statements, in order (run with --execute):" : "  statements, in order:");
        foreach (var step in plan.Preflight.Concat(plan.Steps))
        {
            output.WriteLine($"    -- {step.Phase}");
            output.WriteLine("    " + Line(step.Sql).Replace("\n", "\n    ", StringComparison.Ordinal));
        }

        output.WriteLine(plan.Keep ? $"    -- kept (--keep): {plan.DropSql} is not run" : $"    -- drop\n    {Line(plan.DropSql)}");
        if (result is null)
        {
            return;
        }

        output.WriteLine();
        output.WriteLine($"Drill {result.Status.ToString().ToLowerInvariant()}: restore and recovery measured {Figures.Duration(result.RestoreSeconds)} (the time to get [{Line(plan.Database)}] back on {Line(plan.TargetServer)}), {Figures.Duration(result.TotalSeconds)} in all");
        if (result.Failure is { } failure)
        {
            output.WriteLine($"  failure: {Line(failure)}");
        }

        output.WriteLine("  each phase on BackupXe's clock, per statement:");
        DrillTables.Console(output, DrillTables.Phases(result), "    ");
        if (DrillTables.Inside(result) is { } inside)
        {
            output.WriteLine("  inside each RESTORE, as the capture session timed it:");
            DrillTables.Console(output, inside, "    ");
        }

        foreach (var line in DrillTables.Diagnoses(result))
        {
            output.WriteLine($"  {Line(line)}");
        }

        foreach (var phase in result.Phases.Where(p => p.Error is not null))
        {
            output.WriteLine($"  {phase.Phase}: {phase.Outcome.ToString().ToLowerInvariant()}: {Line(phase.Error!)}");
        }

        output.WriteLine(result.LeftBehind is { } left ? $"  left on the server: {Line(left)}" : "  left on the server: nothing (the scratch database was dropped with its files, or never created)");
    }

    private static void Markdown(TextWriter output, RestoreDrillPlan plan, RestoreDrillResult? result, StoredDrill? previous)
    {
        output.WriteLine($"## Restore drill of [{Md(plan.Database)}] into [{Md(plan.Scratch)}] on {Md(plan.TargetServer)}");
        output.WriteLine();
        output.WriteLine($"Source: {Md(plan.SourceServer)} ({Md(plan.SourceIdentity?.ToString() ?? "?")}); target: {Md(plan.TargetIdentity?.ToString() ?? "?")}.");
        output.WriteLine();
        output.WriteLine("| backup | start | size | position | devices |");
        output.WriteLine("|---|---|---|---|---|");
        foreach (var backup in plan.Backups)
        {
            output.WriteLine($"| {backup.Kind} | {backup.Set.Start.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} | {Figures.Bytes(backup.Set.BackupSize)} | {backup.Position.ToString(CultureInfo.InvariantCulture)} | {Md(string.Join(", ", backup.Devices))} |");
        }

        output.WriteLine();
        foreach (var move in plan.Moves)
        {
            output.WriteLine($"- MOVE {Md(move.LogicalName)} ({move.Type}, {Figures.Bytes(move.SizeBytes)}) to {Md(move.Path)}");
        }

        foreach (var space in plan.Space)
        {
            output.WriteLine($"- space in {Md(space.Folder)}: needs {Figures.Bytes(space.NeededBytes)}, {(space.AvailableBytes is { } free ? Figures.Bytes(free) + " free" : "free space cannot be told")}");
        }

        foreach (var permission in plan.Permissions)
        {
            output.WriteLine($"- permission: {Md(permission)}");
        }

        if (plan.Estimate is { } estimate)
        {
            output.WriteLine($"- estimate: {Md(RestoreEstimateText.Total(estimate))}");
        }

        if (previous is not null)
        {
            output.WriteLine($"- last drill: {Md(MeasuredOn(previous))}");
        }

        foreach (var refusal in plan.Refusals)
        {
            output.WriteLine($"- **refused**: {Md(refusal)}");
        }

        foreach (var note in plan.Notes)
        {
            output.WriteLine($"- note: {Md(note)}");
        }

        output.WriteLine();
        output.WriteLine("```sql");
        foreach (var step in plan.Preflight.Concat(plan.Steps))
        {
            output.WriteLine($"-- {step.Phase}");
            output.WriteLine(step.Sql);
        }

        output.WriteLine(plan.Keep ? "-- kept (--keep): no DROP" : plan.DropSql);
        output.WriteLine("```");
        if (result is null)
        {
            return;
        }

        output.WriteLine();
        output.WriteLine($"**{result.Status.ToString().ToLowerInvariant()}**: restore and recovery {Figures.Duration(result.RestoreSeconds)}, {Figures.Duration(result.TotalSeconds)} in all.");
        output.WriteLine();
        DrillTables.Markdown(output, DrillTables.Phases(result));
        output.WriteLine();
        if (DrillTables.Inside(result) is { } inside)
        {
            output.WriteLine("Inside each RESTORE, as the capture session timed it:");
            output.WriteLine();
            DrillTables.Markdown(output, inside);
            output.WriteLine();
        }

        foreach (var line in DrillTables.Diagnoses(result))
        {
            output.WriteLine($"- {Md(line)}");
        }

        if (result.Failure is { } failure)
        {
            output.WriteLine($"- failure: {Md(failure)}");
        }

        output.WriteLine(result.LeftBehind is { } left ? $"- left on the server: {Md(left)}" : "- left on the server: nothing");
    }

    private static void Json(TextWriter output, RestoreDrillPlan plan, RestoreDrillResult? result, StoredDrill? previous)
    {
        var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteStartObject("restoreDrill");
            json.WriteString("database", plan.Database);
            json.WriteString("scratch", plan.Scratch);
            json.WriteString("targetServer", plan.TargetServer);
            json.WriteString("sourceServer", plan.SourceServer);
            Identity(json, "targetIdentity", plan.TargetIdentity);
            Identity(json, "sourceIdentity", plan.SourceIdentity);
            json.WriteBooleanOrNull(JsonEncodedText.Encode("sameServer"), plan.SourceIdentity is null ? null : plan.TargetIdentity?.SameAs(plan.SourceIdentity));
            MsdbSpan.WriteTime(json, "stopAt", plan.StopAt);
            json.WriteStartArray("backups");
            foreach (var backup in plan.Backups)
            {
                json.WriteStartObject();
                json.WriteString("type", backup.Kind);
                MsdbSpan.WriteTime(json, "start", backup.Set.Start);
                MsdbSpan.WriteTime(json, "finish", backup.Set.Finish);
                json.WriteNumber("position", backup.Position);
                json.WriteNumberOrNull("backupBytes", backup.Set.BackupSize);
                json.WriteNumberOrNull("mediaBytes", backup.Set.MediaSize);
                json.WriteStartArray("devices");
                foreach (var device in backup.Devices)
                {
                    json.WriteStringValue(device);
                }

                json.WriteEndArray();
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteStartArray("moves");
            foreach (var move in plan.Moves)
            {
                json.WriteStartObject();
                json.WriteString("logicalName", move.LogicalName);
                json.WriteString("type", move.Type);
                json.WriteNumber("sizeBytes", move.SizeBytes);
                json.WriteString("path", move.Path);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteStartArray("space");
            foreach (var space in plan.Space)
            {
                json.WriteStartObject();
                json.WriteString("folder", space.Folder);
                json.WriteNumber("neededBytes", space.NeededBytes);
                json.WriteNumberOrNull("availableBytes", space.AvailableBytes);
                json.WriteStringOrNull("unknown", space.Unknown);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            Strings(json, "permissions", plan.Permissions);
            json.WriteStartArray("statements");
            foreach (var step in plan.Preflight.Concat(plan.Steps))
            {
                json.WriteStartObject();
                json.WriteString("phase", step.Phase);
                json.WriteString("sql", step.Sql);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteString("dropStatement", plan.DropSql);
            json.WriteBoolean("keep", plan.Keep);
            json.WriteBoolean("checkdb", plan.CheckDb);
            if (plan.Estimate is { } estimate)
            {
                RestoreEstimateWriter.Json(json, "estimate", [estimate]);
            }
            else
            {
                json.WriteNull("estimate");
            }

            if (previous is null)
            {
                json.WriteNull("lastDrill");
            }
            else
            {
                json.WriteStartObject("lastDrill");
                json.WriteString("drilledAtUtc", previous.DrilledAt.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture));
                json.WriteString("scratch", previous.Scratch);
                json.WriteNumber("restoreSeconds", previous.RestoreSeconds);
                json.WriteEndObject();
            }

            Strings(json, "refusals", plan.Refusals);
            Strings(json, "notes", plan.Notes);
            if (result is null)
            {
                json.WriteNull("result");
            }
            else
            {
                json.WriteStartObject("result");
                json.WriteString("status", result.Status.ToString().ToLowerInvariant());
                json.WriteString("startedUtc", result.StartedUtc.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture));
                json.WriteNumber("restoreSeconds", result.RestoreSeconds);
                json.WriteNumber("totalSeconds", result.TotalSeconds);
                json.WriteStringOrNull("failure", result.Failure);
                json.WriteStringOrNull("leftBehind", result.LeftBehind);
                json.WriteStartArray("phases");
                foreach (var phase in result.Phases)
                {
                    json.WriteStartObject();
                    json.WriteString("phase", phase.Phase);
                    json.WriteString("statement", phase.Statement);
                    json.WriteNumber("seconds", phase.Seconds);
                    json.WriteString("outcome", phase.Outcome.ToString().ToLowerInvariant());
                    json.WriteStringOrNull("error", phase.Error);
                    Capture(json, phase);
                    json.WriteEndObject();
                }

                json.WriteEndArray();
                json.WriteEndObject();
            }

            json.WriteEndObject();
            json.WriteEndObject();
        }

        output.WriteLine(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }

    /// <summary>A RESTORE's phases inside the server and its diagnosis (the verdict as analyze writes it), or null with why.</summary>
    private static void Capture(Utf8JsonWriter json, DrillPhase phase)
    {
        json.WriteStringOrNull("captureProblem", phase.CaptureProblem);
        if (phase.Capture is not { } capture)
        {
            json.WriteNull("capture");
            return;
        }

        json.WriteStartObject("capture");
        json.WriteNumberOrNull("seconds", capture.Seconds);
        json.WriteNumberOrNull("bytes", capture.Bytes);
        json.WriteNumberOrNull("throughputMBps", capture.ThroughputMBps);
        json.WriteStartArray("phases");
        foreach (var inside in capture.Phases)
        {
            json.WriteStartObject();
            json.WriteString("name", inside.Name);
            json.WriteStringOrNull("detail", inside.Detail);
            json.WriteNumberOrNull("seconds", inside.Seconds);
            json.WriteNumberOrNull("bytes", inside.Bytes);
            json.WriteNumberOrNull("megabytesPerSecond", inside.MegabytesPerSecond);
            json.WriteEndObject();
        }

        json.WriteEndArray();
        if (capture.Verdict is { } verdict)
        {
            json.WritePropertyName("verdict");
            json.WriteRawValue(ReportJson.Serialize(verdict));
        }
        else
        {
            json.WriteNull("verdict");
        }

        json.WriteEndObject();
    }

    /// <summary>The plan and, after --execute, the measured tables, as one section of the house's HTML page.</summary>
    private static HtmlTextSection Html(RestoreDrillPlan plan, RestoreDrillResult? result, StoredDrill? previous)
    {
        var lines = new List<string>
        {
            $"source: {plan.SourceServer} ({plan.SourceIdentity?.ToString() ?? "?"})",
            $"target: {plan.TargetServer} ({plan.TargetIdentity?.ToString() ?? "?"})",
        };
        if (plan.StopAt is { } stop)
        {
            lines.Add($"stop at {stop.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} (source server local time)");
        }

        lines.AddRange(plan.Space.Select(space => $"space in {space.Folder}: needs {Figures.Bytes(space.NeededBytes)}, {(space.AvailableBytes is { } free ? Figures.Bytes(free) + " free" : "free space cannot be told: " + space.Unknown)}{(space.Short ? " (too little)" : string.Empty)}"));
        lines.AddRange(plan.Permissions.Select(p => "permission: " + p));
        if (plan.Estimate is { } estimate)
        {
            lines.Add("estimate: " + RestoreEstimateText.Total(estimate));
        }

        if (previous is not null)
        {
            lines.Add("last drill: " + MeasuredOn(previous));
        }

        lines.AddRange(plan.Refusals.Select(r => "refused: " + r));
        var blocks = new List<HtmlTextBlock>
        {
            new("Backups, in the order restored", [.. plan.Moves.Select(m => $"MOVE {m.LogicalName} ({m.Type}, {Figures.Bytes(m.SizeBytes)}) to {m.Path}")],
                new HtmlTable("backups", [new("backup"), new("start"), new("size", "backupBytes"), new("position", "position"), new("devices")],
                    plan.Backups.Select(b => (IReadOnlyList<HtmlCell>)
                    [
                        new(b.Kind), new(b.Set.Start.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)), new(Figures.Bytes(b.Set.BackupSize), b.Set.BackupSize),
                        new(b.Position.ToString(CultureInfo.InvariantCulture), b.Position), new(string.Join(", ", b.Devices)),
                    ]).ToList()),
                plan.Notes),
            new(result is null ? "Statements, in order (run with --execute)" : "Statements, in order",
                [.. plan.Preflight.Concat(plan.Steps).Select(step => $"{step.Phase}: {step.Sql}"), plan.Keep ? $"kept (--keep): {plan.DropSql} is not run" : "drop: " + plan.DropSql],
                null, []),
        };
        if (result is not null)
        {
            var outcome = new List<string>();
            if (result.Failure is { } failure)
            {
                outcome.Add("failure: " + failure);
            }

            outcome.AddRange(result.Phases.Where(p => p.Error is not null).Select(p => $"{p.Phase}: {p.Outcome.ToString().ToLowerInvariant()}: {p.Error}"));
            outcome.Add(result.LeftBehind is { } left ? "left on the server: " + left : "left on the server: nothing");
            blocks.Add(new($"Drill {result.Status.ToString().ToLowerInvariant()}: restore and recovery measured {Figures.Duration(result.RestoreSeconds)}, {Figures.Duration(result.TotalSeconds)} in all",
                outcome, DrillTables.Phases(result), [])
            {
                Chart = new("Each phase's time on BackupXe's clock", [.. result.ByPhase().Select(p => new HtmlBar(p.Phase, p.Seconds, Figures.Duration(p.Seconds)))]),
            });
            if (DrillTables.Inside(result) is { } inside)
            {
                blocks.Add(new("Inside each RESTORE, as the capture session timed it", [], inside, DrillTables.Diagnoses(result))
                {
                    Chart = new("Each phase inside each RESTORE, as the capture session timed it", DrillTables.InsideBars(result)),
                });
            }
            else if (DrillTables.Diagnoses(result) is { Count: > 0 } problems)
            {
                blocks.Add(new("Inside each RESTORE", problems, null, []));
            }
        }

        return new HtmlTextSection("restore-drill", $"Restore drill of [{plan.Database}] from {plan.SourceServer} into [{plan.Scratch}] on {plan.TargetServer}", lines, blocks);
    }

    private static void Identity(Utf8JsonWriter json, string name, ServerIdentity? identity)
    {
        if (identity is null)
        {
            json.WriteNull(name);
            return;
        }

        json.WriteStartObject(name);
        json.WriteStringOrNull("serverName", identity.ServerName);
        json.WriteStringOrNull("machineName", identity.MachineName);
        json.WriteStringOrNull("instanceName", identity.InstanceName);
        json.WriteEndObject();
    }

    private static void Strings(Utf8JsonWriter json, string name, IEnumerable<string> values)
    {
        json.WriteStartArray(name);
        foreach (var value in values)
        {
            json.WriteStringValue(value);
        }

        json.WriteEndArray();
    }

    private static string Line(string text) => TerminalText.Line(text);

    private static string Md(string text) => TerminalText.Line(text).Replace("|", "\\|", StringComparison.Ordinal);
}
