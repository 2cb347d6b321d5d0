using System.Globalization;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Reporting;

/// <summary>
/// One tune as the history keeps it (docs/history.md, "Tune runs"): when it ran, on which instance and database, the
/// best options found with their measured rate, the baseline and read ceiling it was judged against, the gain with its
/// uncertainty, which side limits, why it stopped, and the recommended statement, and the restore trials when
/// they ran. Later backups of the database are
/// set against it, to show whether production got the gain.
/// </summary>
public sealed record TuneRecord
{
    public required string Instance { get; init; }

    public required string Database { get; init; }

    /// <summary>When the tune finished, UTC.</summary>
    public required DateTime TunedAt { get; init; }

    /// <summary>The best trial's options ("2 files, BUFFERCOUNT 64, ..."); null when no trial was better than nothing.</summary>
    public string? BestOptions { get; init; }

    public double? BestMBps { get; init; }

    /// <summary>The baseline trial at the server's defaults.</summary>
    public double? BaselineMBps { get; init; }

    /// <summary>COPY_ONLY to NUL without compression: the source's read limit.</summary>
    public double? ReadCeilingMBps { get; init; }

    /// <summary>Best over baseline, minus one.</summary>
    public double? Gain { get; init; }

    /// <summary>Two standard deviations of the gain.</summary>
    public double? GainUncertainty { get; init; }

    /// <summary>source, target or cannot-tell.</summary>
    public required string LimitingSide { get; init; }

    public int Trials { get; init; }

    public int Runs { get; init; }

    public required string StopReason { get; init; }

    public bool Refused { get; init; }

    /// <summary>The production BACKUP statement with the best options; null without a best trial.</summary>
    public string? RecommendedSql { get; init; }

    /// <summary>Trial options the server did not apply as asked, per trial ("trial 4: BLOCKSIZE ..."), so a reader knows what was measured.</summary>
    public IReadOnlyList<string> Differences { get; init; } = [];

    /// <summary>The restore trials (<c>tune --restore</c>); null when none were asked for, and in rows stored before they were kept.</summary>
    public RestoreTuneRecord? Restore { get; init; }

    /// <summary>
    /// "Last tuned 2026-11-20 10:00 UTC: best 2 files, ... at 850 MB/s (+40% ± 6% over its 600 MB/s baseline); this run:
    /// 610 MB/s, 72% of the tuned rate." The run's own rate is left out when unknown.
    /// </summary>
    public string Against(double? runMBps)
    {
        var when = TunedAt.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture) + " UTC";
        if (BestMBps is not { } best || BestOptions is null)
        {
            return $"last tuned {when}, without a result: {StopReason}";
        }

        var gain = Gain is { } g && BaselineMBps is { } baseline
            ? string.Create(CultureInfo.InvariantCulture, $" ({(g >= 0 ? "+" : "")}{g * 100:0}%{(GainUncertainty is { } u ? $" ± {u * 100:0}%" : "")} over its {Figures.Rate(baseline)} baseline)")
            : string.Empty;
        var run = runMBps is { } rate && best > 0
            ? string.Create(CultureInfo.InvariantCulture, $"; this run: {Figures.Rate(rate)}, {rate / best * 100:0}% of the tuned rate")
            : string.Empty;
        return string.Create(CultureInfo.InvariantCulture, $"last tuned {when}: best {BestOptions} at {Figures.Rate(best)}{gain}{run}");
    }
}
