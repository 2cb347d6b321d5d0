using System.Globalization;
using BackupXe.Core.Analysis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>The "Runs compared" section as the console, Markdown and HTML reports print it (docs/diagnosis.md, "Runs compared").</summary>
public static class RunsComparedLines
{
    public const string Title = "Runs compared";

    /// <summary>The section of what the inputs show besides operations: excerpts' timed runs, verifications, a job's time.</summary>
    public const string FindingsTitle = "What the inputs show";

    /// <summary>True when the run has series for the section.</summary>
    public static bool Any(AnalysisFindings findings)
    {
        ArgumentNullException.ThrowIfNull(findings);
        return findings.RunsCompared.Count > 0;
    }

    /// <summary>"full backup of [Sales]: 4 runs in job.txt".</summary>
    public static string Heading(RunsComparedReport series)
    {
        ArgumentNullException.ThrowIfNull(series);
        var inputs = series.Runs.Select(r => r.Input).Distinct(StringComparer.Ordinal).ToList();
        var skipped = series.Skipped > 0 ? string.Create(CultureInfo.InvariantCulture, $" ({series.Skipped} more not kept)") : "";
        return string.Create(CultureInfo.InvariantCulture,
            $"{series.Series}: {series.Runs.Count} runs{skipped} in {(inputs.Count == 1 ? inputs[0] : $"{inputs.Count} inputs")}");
    }

    /// <summary>One line per run: "run 1: 2024-05-01 01:00:00, 790 s (engine), 381.0 GB at 493.9 MB/s; BUFFERCOUNT default, ...".</summary>
    public static IReadOnlyList<string> Runs(RunsComparedReport series)
    {
        ArgumentNullException.ThrowIfNull(series);
        var several = series.Runs.Select(r => r.Input).Distinct(StringComparer.Ordinal).Count() > 1;
        return series.Runs.Select((run, i) => string.Create(CultureInfo.InvariantCulture,
            $"run {i + 1}: {(several ? run.Input + ", " : "")}{(run.Start is { } start ? Figures.Timestamp(start) + ", " : "")}"
            + $"{run.Seconds:0.###} s ({(run.SecondsFrom == "engine" ? "the engine's" : "the client's")}), "
            + $"{(run.Bytes is { } bytes ? $"{Figures.Bytes(bytes)} at {Figures.Rate(run.ThroughputMBps)}" : "size not in the input")}; {Settings(run)}")).ToList();
    }

    /// <summary>"[high] Only the buffers differed ...".</summary>
    public static IReadOnlyList<string> Conclusions(RunsComparedReport series)
    {
        ArgumentNullException.ThrowIfNull(series);
        return series.Conclusions.Select(c => $"[{Kebab.Of(c.Confidence)}] {c.Sentence}").ToList();
    }

    /// <summary>"S04a.txt, lines 2-3: ...".</summary>
    public static string Of(InputFindingReport finding)
    {
        ArgumentNullException.ThrowIfNull(finding);
        return $"{finding.Input}, {finding.Location}: {finding.Message}";
    }

    private static string Settings(ComparedRunReport run)
    {
        if (run.SettingsFrom is null)
        {
            return "settings not in the input";
        }

        var parts = new List<string>
        {
            run.BufferCount is { } count ? string.Create(CultureInfo.InvariantCulture, $"BUFFERCOUNT {count}") : "BUFFERCOUNT default",
            run.MaxTransferSizeBytes is { } size ? $"MAXTRANSFERSIZE {Figures.Memory(size)}" : "MAXTRANSFERSIZE default",
            run.Compression switch { true => "COMPRESSION", false => "NO_COMPRESSION", null => "compression default" },
        };
        if (run.Stripes is { } stripes)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"{stripes} stripe{(stripes == 1 ? "" : "s")}"));
        }

        if (run.Target is { } target)
        {
            parts.Add(target);
        }

        return $"{string.Join(", ", parts)} ({run.SettingsFrom})";
    }
}
