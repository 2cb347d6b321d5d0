using System.Globalization;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// The plan of a dry run and the result of a tune, as console text, Markdown or JSON: the trials table, the
/// recommended BACKUP statement and Ola Hallengren parameters, the gain with its uncertainty, and which side limits.
/// </summary>
internal static class TuneReportWriter
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public static string Plan(TuningPlan plan, string format, bool executing) => format switch
    {
        "json" => Json(writer => WritePlan(writer, plan)),
        "markdown" => PlanText(plan, executing, markdown: true),
        _ => PlanText(plan, executing, markdown: false),
    };

    public static string Result(TuningResult result, string format) => format switch
    {
        "json" => Json(writer =>
        {
            writer.WriteStartObject();
            writer.WritePropertyName("plan");
            WritePlan(writer, result.Plan);
            WriteResult(writer, result);
            writer.WriteEndObject();
        }),
        "markdown" => ResultText(result, markdown: true),
        _ => ResultText(result, markdown: false),
    };

    private static string PlanText(TuningPlan plan, bool executing, bool markdown)
    {
        var text = new StringBuilder();
        var heading = $"Tune plan for [{TerminalText.Line(plan.Database)}]: {Size(plan.DatabaseBytes)} of data files, to {string.Join(", ", plan.Directories.Select(TerminalText.Line))}";
        text.AppendLine(markdown ? "## " + heading : heading);
        text.AppendLine(executing
            ? plan.FilesKept ? "Running it (Ctrl-C stops the running backup and lists the trial files to remove)." : "Running it (Ctrl-C stops the running backup and deletes its files)."
            : "Dry run: nothing ran. Add --execute to run these trials.");
        text.AppendLine();
        text.AppendLine(markdown ? "### Trials, in order" : "Trials, in order:");
        var number = 1;
        foreach (var trial in plan.FixedTrials)
        {
            text.AppendLine(string.Create(Invariant, $"{(markdown ? $"{number}." : $"  {number}.")} {TerminalText.Line(trial)}"));
            number++;
        }

        text.AppendLine(string.Create(Invariant, $"{(markdown ? "-" : "  then")} up to {plan.GuidedTrialsAtMost} guided trials, each chosen from the diagnosis of the best trial so far (repeats included)"));
        text.AppendLine();
        text.AppendLine(markdown ? "### At most" : "At most:");
        var bullet = markdown ? "- " : "  ";
        text.AppendLine(string.Create(Invariant, $"{bullet}time: {plan.TrialsAtMost} trials of up to {plan.SecondsPerTrialAtMost:0} s each, {Minutes(plan.ExpectedSecondsAtMost)} in all (budget {Minutes(plan.TimeBudgetSeconds)})"));
        text.AppendLine($"{bullet}bytes read: {Size(plan.BytesReadAtMost)} (each trial reads at most the database once; it stops at its {plan.WindowSeconds.ToString("0", Invariant)} s window)");
        text.AppendLine(plan.FilesKept
            ? $"{bullet}bytes written: {Size(plan.BytesWrittenAtMost)}, all of it left on disk until the DBA removes the trial files (listed at the end)"
            : $"{bullet}bytes written: {Size(plan.BytesWrittenAtMost)}, never more than {Size(plan.DiskSpaceAtMost)} on disk at once (each trial's files are deleted before the next)");
        text.AppendLine($"{bullet}buffer memory: {Figures.Memory(plan.MemoryBudgetBytes)} (a hard limit, as the server reports it)");
        text.AppendLine();
        foreach (var note in plan.Notes)
        {
            text.AppendLine($"{(markdown ? "- " : "Note: ")}{TerminalText.Line(note)}");
        }

        return text.ToString();
    }

    private static string ResultText(TuningResult result, bool markdown)
    {
        var text = new StringBuilder();
        text.AppendLine(markdown ? $"## Tune of [{TerminalText.Line(result.Plan.Database)}]" : $"Tune of [{TerminalText.Line(result.Plan.Database)}]");
        text.AppendLine();
        var rows = result.Trials.Select(Row).ToList();
        string[] header = ["#", "trial", "options", "buffer memory", "MB/s", "x read ceiling", "bottleneck", "runs", "window", "steadiness"];
        if (markdown)
        {
            text.AppendLine("| " + string.Join(" | ", header) + " |");
            text.AppendLine("|" + string.Concat(header.Select(_ => "---|")));
            foreach (var row in rows)
            {
                text.AppendLine("| " + string.Join(" | ", row.Select(c => c.Replace("|", "\\|", StringComparison.Ordinal))) + " |");
            }
        }
        else
        {
            var widths = header.Select((h, i) => rows.Select(r => r[i].Length).Append(h.Length).Max()).ToArray();
            text.AppendLine(string.Join("  ", header.Select((h, i) => h.PadRight(widths[i]))).TrimEnd());
            foreach (var row in rows)
            {
                text.AppendLine(string.Join("  ", row.Select((c, i) => c.PadRight(widths[i]))).TrimEnd());
            }
        }

        foreach (var trial in result.Trials.Where(t => t.Differences.Count > 0))
        {
            text.AppendLine(string.Create(Invariant, $"{(markdown ? "- " : "  ")}trial {trial.Number}{(trial.OptionsDiffer ? " (effective options differ: not recommended)" : " (not confirmed: not recommended)")}: {string.Join("; ", trial.Differences)}"));
        }

        foreach (var trial in result.Trials.Where(t => t.Runs.Any(r => r.Source != RateSource.Progress)))
        {
            var sources = string.Join(", ", trial.Runs.Select(r => string.Create(Invariant, $"{Kebab.Of(r.Source)} over {r.WindowSeconds:0.0} s")));
            text.AppendLine(string.Create(Invariant, $"{(markdown ? "- " : "  ")}trial {trial.Number} rate from: {sources}"));
        }

        foreach (var trial in result.Trials.Where(t => t.Judgement is not null))
        {
            text.AppendLine(string.Create(Invariant, $"{(markdown ? "- " : "  ")}trial {trial.Number} {TerminalText.Line(trial.Judgement!)}"));
        }

        foreach (var ignored in result.IgnoredOptions)
        {
            text.AppendLine($"{(markdown ? "- " : "")}Ignored by the server: {TerminalText.Line(ignored)}");
        }

        if (result.Trials.Any(t => t.Runs.Any(r => !r.Measured)))
        {
            text.AppendLine(string.Create(Invariant, $"{(markdown ? "- " : "")}Runs marked not measured gave too little progress in their window to tell a rate (never read as 0 MB/s); the window grew to {result.WindowSeconds:0} s for the runs after them."));
        }

        text.AppendLine();
        text.AppendLine($"{(result.Refused ? "Refused" : "Stopped")}: {TerminalText.Line(result.StopReason)}");
        foreach (var overridden in result.FreeSpaceOverrides)
        {
            text.AppendLine($"Free-space check overridden: {TerminalText.Line(overridden)}");
        }

        text.AppendLine(string.Create(Invariant, $"Run-to-run noise: {result.RelativeNoise * 100:0.0}%; {result.Trials.Sum(t => t.Runs.Count)} runs, {Minutes(result.SpentSeconds)}."));
        if (result.Best is { } best && result.Gain is { } gain && double.IsFinite(gain))
        {
            text.AppendLine(string.Create(Invariant, $"Recommended: trial {best.Number}, {best.Requested.Describe()}: {Figures.Rate(best.RateMBps)}, {Signed(gain)} ± {result.GainUncertainty * 100:0}% over the baseline ({result.Baseline!.RateMBps:0.#} MB/s); adopted only on gains above {Tuner.ConfidenceDeviations:0} standard deviations of the noise, the cheapest set within the noise of the fastest."));
            text.AppendLine();
            Block(text, markdown, "Recommended BACKUP statement (for production: no COPY_ONLY; edit the file names)", TuningAdvice.RecommendedSql(result)!, "sql");
            Block(text, markdown, "The same with Ola Hallengren's DatabaseBackup", TuningAdvice.OlaCommand(result)!, "sql");
        }

        var (side, evidence) = TuningAdvice.Limit(result);
        text.AppendLine(markdown ? $"### Which side limits: {Kebab.Of(side)}" : $"Which side limits: {Kebab.Of(side)}");
        foreach (var line in evidence)
        {
            text.AppendLine($"{(markdown ? "- " : "  ")}{TerminalText.Line(line)}");
        }

        if (side == LimitingSide.Target)
        {
            text.AppendLine();
            Block(text, markdown, $"Confirm the target's write speed on the server ({(result.Facts.Linux ? "fio" : "diskspd")}, at the best trial's transfer size)", TuningAdvice.Benchmark(result), result.Facts.Linux ? "sh" : "bat");
        }

        if (result.Restore is { } restore)
        {
            text.AppendLine();
            RestoreText(text, restore, markdown);
        }

        text.AppendLine("Each trial wrote a row to msdb backup history (COPY_ONLY leaves the backup chain alone; is_copy_only = 1 and the NAME backupxe-tune-... tell its rows apart).");
        text.Append(KeptFiles(result.KeptFiles, result.Facts.Linux, markdown, result.KeptBytesLimit));
        return text.ToString();
    }

    /// <summary>
    /// A tune cancelled or failed midway: why, and the trial files it left, in the asked format (JSON a single object),
    /// so that the list survives whatever stopped the tune.
    /// </summary>
    public static string Stopped(string reason, IReadOnlyList<KeptTrialFile> files, bool linux, string format) => format switch
    {
        "json" => Json(json =>
        {
            json.WriteStartObject();
            json.WriteString("stopReason", reason);
            json.WriteBoolean("refused", true);
            WriteKeptFiles(json, files, linux);
            json.WriteEndObject();
        }),
        _ => $"{(format == "markdown" ? "## " : "")}Stopped: {TerminalText.Line(reason)}{Environment.NewLine}" + KeptFiles(files, linux, format == "markdown"),
    };

    private static void RestoreText(StringBuilder text, RestoreTuningResult restore, bool markdown)
    {
        text.AppendLine(markdown ? "### Restore trials" : "Restore trials:");
        foreach (var trial in restore.Trials)
        {
            var zeroing = trial.ZeroingSeconds is { } seconds
                ? string.Create(Invariant, $"zeroing {seconds:0.0} s ({string.Join(", ", trial.Zeroing.Select(z => TerminalText.Line(z.Path)))})")
                : "no zeroing seen";
            var runs = trial.Runs.Count == 1 ? string.Empty : string.Create(Invariant, $" (mean of {trial.Runs.Count} runs)");
            text.AppendLine(string.Create(Invariant,
                $"{(markdown ? "- " : "  ")}{trial.Number}. {trial.Options}: {Figures.Rate(trial.RateMBps)}{runs} over {trial.WindowSeconds:0.0} s{(trial.Finished ? " (finished)" : "")}; {zeroing}; limited by {(trial.Limit is { } limit ? Kebab.Of(limit.Side) : "?")}; scratch database{(trial.Runs.Count == 1 ? "" : "s")} {string.Join(", ", trial.Runs.Select(r => $"[{TerminalText.Line(r.ScratchDatabase)}]"))}"));
            if (trial.Limit is { } why)
            {
                text.AppendLine($"{(markdown ? "  " : "     ")}{TerminalText.Line(why.Evidence)}");
            }

            if (trial.Differences.Count > 0)
            {
                text.AppendLine($"{(markdown ? "  " : "     ")}{(trial.OptionsDiffer ? "(effective options differ: not recommended): " : "")}{TerminalText.Line(string.Join("; ", trial.Differences))}");
            }
        }

        text.AppendLine($"{(restore.Refused ? "Refused" : "Stopped")}: {TerminalText.Line(restore.StopReason)}");
        if (restore.Best is { } best)
        {
            text.AppendLine(string.Create(Invariant, $"Best restore: trial {best.Number}, {best.Options}: {Figures.Rate(best.RateMBps)}{(restore.Gain is { } g ? $", {Signed(g)} over the server's defaults" : "")}."));
        }

        text.AppendLine(restore.InstantFileInitialization switch
        {
            true => "Instant File Initialization: enabled (sys.dm_server_services): data files are not zeroed; the log file always is.",
            false => "Instant File Initialization: disabled (sys.dm_server_services): every data file is zeroed before the copy; enabling it removes that time.",
            null => "Instant File Initialization: not known (sys.dm_server_services did not say).",
        });
        text.AppendLine("Each restore trial wrote rows to msdb restore history; every scratch database was dropped after its trial" + (restore.NotDropped.Count > 0 ? ", except:" : "."));
        foreach (var drop in restore.NotDropped)
        {
            text.AppendLine($"{(markdown ? "- " : "  ")}{TerminalText.Line(drop)}");
        }
    }

    /// <summary>The trial files left on the server, with their paths, sizes and the command that removes them; empty when none.</summary>
    public static string KeptFiles(IReadOnlyList<KeptTrialFile> files, bool linux, bool markdown = false, long? limit = null)
    {
        if (files.Count == 0)
        {
            return string.Empty;
        }

        var text = new StringBuilder();
        var total = TrialFileCleanup.TotalBytesAtMost(files);
        text.AppendLine();
        var blobs = TrialFileCleanup.AreBlobs(files);
        var sets = files.Select(f => f.MediaName ?? f.Path).Distinct(StringComparer.Ordinal).Count();
        var sizes = total is { } bytes
            ? string.Create(Invariant, $"in {sets} media set{(sets == 1 ? "" : "s")}, at most {Size(bytes)} ({bytes} bytes) in all{(limit is { } l ? $", within the bound of {Size(l)} ({l} bytes)" : "")}")
            : "size not known for all";
        var title = blobs
            ? $"Trial blobs left in storage: {files.Count}, {sizes}. Neither the server (no T-SQL statement deletes a blob) nor BackupXe (it holds no storage credential) can delete them; delete exactly these with the storage's own tools:"
            : $"Trial files kept on the server: {files.Count}, {sizes}. BackupXe cannot delete them (no documented, least-privilege T-SQL deletes a file); remove them on the server:";
        text.AppendLine(markdown ? "### " + title : title);
        foreach (var file in files)
        {
            var size = file.BytesAtMost is { } b
                ? string.Create(Invariant, $"at most {b} bytes{(file.MediaName is { } media ? $", shared with the other files of media set {media}" : "")}")
                : "size not known (stopped before it was captured)";
            text.AppendLine($"{(markdown ? "- " : "  ")}{TerminalText.Line(file.Path)}  ({size})");
        }

        if (!blobs)
        {
            text.AppendLine();
            Block(text, markdown, linux ? "On the server (sh)" : "On the server (PowerShell)", TrialFileCleanup.Command(files, linux), linux ? "sh" : "powershell");
        }

        return text.ToString();
    }

    private static string[] Row(Trial trial) =>
    [
        trial.Number.ToString(Invariant),
        Kebab.Of(trial.Purpose) + (trial.ToNul ? " (NUL)" : ""),
        trial.Requested.Describe() + (trial.OptionsDiffer ? " [differs]" : ""),
        Figures.Memory(trial.BufferMemoryBytes),
        trial.Measured ? trial.RateMBps.ToString("0.#", Invariant) : "not measured",
        trial.RatioToCeiling is { } ratio ? ratio.ToString("0.00", Invariant) : "",
        trial.Bottleneck is { } bottleneck ? Kebab.Of(bottleneck) : "?",
        trial.Runs.Count.ToString(Invariant),
        trial.Runs.Count == 0 ? "" : trial.Runs.Average(r => r.WindowSeconds).ToString("0.0", Invariant) + " s",
        trial.Runs.Count == 0 ? "" : (trial.Runs.Average(r => r.Steadiness) * 100).ToString("0.0", Invariant) + "%",
    ];

    private static void Block(StringBuilder text, bool markdown, string title, string body, string language)
    {
        text.AppendLine(markdown ? $"### {title}" : $"{title}:");
        text.AppendLine(markdown ? "```" + language : "");
        text.AppendLine(TerminalText.Block(body));
        text.AppendLine(markdown ? "```" : "");
    }

    private static void WritePlan(Utf8JsonWriter json, TuningPlan plan)
    {
        json.WriteStartObject();
        json.WriteString("database", plan.Database);
        json.WriteStartArray("directories");
        plan.Directories.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteStartArray("fixedTrials");
        plan.FixedTrials.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteNumber("guidedTrialsAtMost", plan.GuidedTrialsAtMost);
        json.WriteNumber("windowSeconds", plan.WindowSeconds);
        json.WriteNumber("expectedSecondsAtMost", plan.ExpectedSecondsAtMost);
        json.WriteNumber("databaseBytes", plan.DatabaseBytes);
        json.WriteNumber("bytesReadAtMost", plan.BytesReadAtMost);
        json.WriteNumber("bytesWrittenAtMost", plan.BytesWrittenAtMost);
        json.WriteNumber("diskSpaceAtMost", plan.DiskSpaceAtMost);
        json.WriteNumber("memoryBudgetBytes", plan.MemoryBudgetBytes);
        json.WriteBoolean("filesKept", plan.FilesKept);
        json.WriteStartArray("notes");
        plan.Notes.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void WriteResult(Utf8JsonWriter json, TuningResult result)
    {
        json.WriteStartArray("trials");
        foreach (var trial in result.Trials)
        {
            json.WriteStartObject();
            json.WriteNumber("number", trial.Number);
            json.WriteString("purpose", Kebab.Of(trial.Purpose));
            json.WriteBoolean("toNul", trial.ToNul);
            json.WriteString("options", trial.Requested.Describe());
            json.WriteNumberOrNull("bufferMemoryBytes", trial.BufferMemoryBytes);
            json.WriteNumberOrNull("mbPerSecond", trial.Measured ? Finite(trial.RateMBps, 2) : null);
            json.WriteBoolean("measured", trial.Measured);
            json.WriteBoolean("confirmed", trial.Confirmed);
            json.WriteStringOrNull("judgement", trial.Judgement);
            json.WriteNumberOrNull("ratioToReadCeiling", trial.RatioToCeiling is { } r ? Finite(r, 3) : null);
            json.WriteStringOrNull("bottleneck", trial.Bottleneck is { } b ? Kebab.Of(b) : null);
            json.WriteStartArray("runs");
            foreach (var run in trial.Runs)
            {
                json.WriteStartObject();
                json.WriteNumberOrNull("mbPerSecond", run.Measured ? Finite(run.RateMBps, 2) : null);
                json.WriteString("source", Kebab.Of(run.Source));
                json.WriteNumberOrNull("windowSeconds", Finite(run.WindowSeconds, 2));
                json.WriteNumberOrNull("steadiness", Finite(run.Steadiness, 4));
                json.WriteBoolean("finished", run.Finished);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteBoolean("optionsDiffer", trial.OptionsDiffer);
            json.WriteStartArray("differences");
            trial.Differences.ToList().ForEach(json.WriteStringValue);
            json.WriteEndArray();
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteString("stopReason", result.StopReason);
        json.WriteBoolean("refused", result.Refused);
        json.WriteStartArray("freeSpaceOverrides");
        result.FreeSpaceOverrides.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteNumberOrNull("relativeNoise", Finite(result.RelativeNoise, 4));
        json.WriteNumber("confidenceDeviations", Tuner.ConfidenceDeviations);
        json.WriteNumberOrNull("windowSeconds", Finite(result.WindowSeconds, 2));
        json.WriteStartArray("ignoredOptions");
        result.IgnoredOptions.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteNumberOrNull("bestTrial", result.Best?.Number);
        json.WriteNumberOrNull("gain", result.Gain is { } g ? Finite(g, 4) : null);
        json.WriteNumberOrNull("gainUncertainty", result.GainUncertainty is { } u ? Finite(u, 4) : null);
        json.WriteStringOrNull("recommendedSql", TuningAdvice.RecommendedSql(result));
        json.WriteStringOrNull("olaHallengren", TuningAdvice.OlaCommand(result));
        var (side, evidence) = TuningAdvice.Limit(result);
        json.WriteString("limitingSide", Kebab.Of(side));
        json.WriteStartArray("limitingEvidence");
        evidence.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteStringOrNull("benchmark", side == LimitingSide.Target ? TuningAdvice.Benchmark(result) : null);
        WriteKeptFiles(json, result.KeptFiles, result.Facts.Linux);
        json.WriteNumberOrNull("keptBytesLimit", result.KeptBytesLimit);
        if (result.Restore is not { } restore)
        {
            json.WriteNull("restore");
            return;
        }

        json.WriteStartObject("restore");
        json.WriteStartArray("trials");
        foreach (var trial in restore.Trials)
        {
            json.WriteStartObject();
            json.WriteNumber("number", trial.Number);
            json.WriteString("scratchDatabase", trial.ScratchDatabase);
            json.WriteNumberOrNull("bufferCount", trial.BufferCount);
            json.WriteNumberOrNull("maxTransferSizeBytes", trial.MaxTransferSizeBytes);
            json.WriteNumberOrNull("mbPerSecond", Finite(trial.RateMBps, 2));
            json.WriteStartArray("runs");
            foreach (var rate in trial.Runs.Select(r => Finite(r.RateMBps, 2)))
            {
                if (rate is { } value)
                {
                    json.WriteNumberValue(value);
                }
                else
                {
                    json.WriteNullValue();
                }
            }

            json.WriteEndArray();
            json.WriteNumberOrNull("windowSeconds", Finite(trial.WindowSeconds, 2));
            json.WriteBoolean("finished", trial.Finished);
            json.WriteNumberOrNull("bufferMemoryBytes", trial.BufferMemoryBytes);
            json.WriteNumberOrNull("zeroingSeconds", trial.ZeroingSeconds is { } z ? Finite(z, 3) : null);
            json.WriteStartArray("zeroedFiles");
            trial.Zeroing.Select(f => f.Path).ToList().ForEach(json.WriteStringValue);
            json.WriteEndArray();
            json.WriteStringOrNull("bottleneck", trial.Bottleneck is { } b ? Kebab.Of(b) : null);
            json.WriteStringOrNull("limit", trial.Limit is { } limit ? Kebab.Of(limit.Side) : null);
            json.WriteStringOrNull("limitEvidence", trial.Limit?.Evidence);
            json.WriteBoolean("optionsDiffer", trial.OptionsDiffer);
            json.WriteStartArray("differences");
            trial.Differences.ToList().ForEach(json.WriteStringValue);
            json.WriteEndArray();
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteNumberOrNull("bestTrial", restore.Best?.Number);
        json.WriteNumberOrNull("gain", restore.Gain is { } restoreGain ? Finite(restoreGain, 4) : null);
        if (restore.InstantFileInitialization is { } ifi)
        {
            json.WriteBoolean("instantFileInitialization", ifi);
        }
        else
        {
            json.WriteNull("instantFileInitialization");
        }

        json.WriteString("stopReason", restore.StopReason);
        json.WriteBoolean("refused", restore.Refused);
        json.WriteStartArray("notDropped");
        restore.NotDropped.ToList().ForEach(json.WriteStringValue);
        json.WriteEndArray();
        json.WriteEndObject();
    }

    /// <summary>The files left, their exact bounds (per file, and in all over their media sets) and the command that removes them.</summary>
    private static void WriteKeptFiles(Utf8JsonWriter json, IReadOnlyList<KeptTrialFile> files, bool linux)
    {
        json.WriteStartArray("keptFiles");
        foreach (var file in files)
        {
            json.WriteStartObject();
            json.WriteString("path", file.Path);
            json.WriteNumberOrNull("bytesAtMost", file.BytesAtMost);
            json.WriteStringOrNull("mediaName", file.MediaName);
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteNumberOrNull("keptBytesAtMost", TrialFileCleanup.TotalBytesAtMost(files));
        json.WriteStringOrNull("keptFilesCommand", files.Count > 0 && !TrialFileCleanup.AreBlobs(files) ? TrialFileCleanup.Command(files, linux) : null);
    }

    /// <summary>A figure rounded for the report, or null where it is not a number (JSON has no infinity or NaN).</summary>
    private static double? Finite(double value, int digits) => double.IsFinite(value) ? Math.Round(value, digits) : null;

    private static string Json(Action<Utf8JsonWriter> write)
    {
        var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            write(json);
        }

        return Encoding.UTF8.GetString(buffer.ToArray());
    }

    private static string Size(long bytes) => bytes >= 1L << 40
        ? string.Create(Invariant, $"{bytes / (double)(1L << 40):0.#} TB")
        : bytes >= 1L << 30 ? string.Create(Invariant, $"{bytes / (double)(1L << 30):0.#} GB") : Figures.Memory(bytes);

    private static string Minutes(double seconds) => string.Create(Invariant, $"{seconds / 60:0.#} min");

    private static string Signed(double share) => string.Create(Invariant, $"{(share >= 0 ? "+" : "")}{share * 100:0}%");
}
