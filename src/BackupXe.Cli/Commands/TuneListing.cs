using System.Globalization;
using System.Text;
using BackupXe.Cli.Analysis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe history tunes</c>: the stored tune runs, read only, written to <paramref name="console"/> per
/// database, newest first.
/// </summary>
internal sealed class TuneListing(CliConsole console)
{
    public async Task<int> RunAsync(HistoryTunesSettings settings, CancellationToken cancellationToken)
    {
        var file = settings.Path;
        if (!File.Exists(file))
        {
            await console.Error.WriteLineAsync($"backupxe: no history at '{file}': tune --execute --history writes it; name it with --path.");
            return ExitCodes.NothingUsable;
        }

        TuneRead read;
        try
        {
            // Read-only: the file is never created, migrated or switched to WAL; one from before tune runs has none.
            await SqliteHistoryStore.ForReading(file, TimeProvider.System).VerifyAsync(cancellationToken);
            read = await new SqliteTuneHistory(file, TimeProvider.System)
                .ReadAsync(settings.Instance, settings.Databases.Count > 0 ? [.. settings.Databases] : null, settings.Limit, cancellationToken);
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {file}: {exception.Message}");
            return ExitCodes.NothingUsable;
        }

        foreach (var problem in read.Problems)
        {
            await console.Error.WriteLineAsync($"backupxe: {file}: {problem}");
        }

        await console.Out.WriteAsync(settings.Format switch
        {
            "json" => ReportJson.Serialize(read.Records, indented: true) + Environment.NewLine,
            "markdown" => Text(read.Records, markdown: true),
            _ => Text(read.Records, markdown: false),
        });
        return read.Problems.Count > 0 ? ExitCodes.Partial : ExitCodes.Success;
    }

    /// <summary>One block per database, its tunes newest first.</summary>
    internal static string Text(IReadOnlyList<TuneRecord> records, bool markdown)
    {
        var text = new StringBuilder();
        if (records.Count == 0)
        {
            text.AppendLine("No tune runs match.");
            return text.ToString();
        }

        foreach (var group in records.GroupBy(r => (r.Instance, Database: r.Database.ToUpperInvariant())))
        {
            var first = group.First();
            var heading = $"Tune runs of [{TerminalText.Line(first.Database)}] on {TerminalText.Line(first.Instance)}";
            text.AppendLine(markdown ? "## " + heading : heading);
            foreach (var tune in group)
            {
                var bullet = markdown ? "- " : "  ";
                text.AppendLine(string.Create(CultureInfo.InvariantCulture,
                    $"{bullet}{tune.TunedAt:yyyy-MM-dd HH:mm} UTC: {(tune.BestOptions is { } best ? $"best {TerminalText.Line(best)} at {Rate(tune.BestMBps)}" : "no best trial")}; baseline {Rate(tune.BaselineMBps)}, read ceiling {Rate(tune.ReadCeilingMBps)}{Gain(tune)}; {tune.Trials} trials, {tune.Runs} runs; limited by {tune.LimitingSide}"));
                text.AppendLine($"{(markdown ? "  " : "    ")}stopped: {TerminalText.Line(tune.StopReason)}");
                foreach (var difference in tune.Differences)
                {
                    text.AppendLine($"{(markdown ? "  " : "    ")}effective options differed, {TerminalText.Line(difference)}");
                }

                if (tune.Restore is { } restore)
                {
                    Restore(text, restore, markdown);
                }
            }

            text.AppendLine();
        }

        return text.ToString();
    }

    /// <summary>The restore trials under their tune: the best and its gain, then each trial, then why they stopped.</summary>
    private static void Restore(StringBuilder text, RestoreTuneRecord restore, bool markdown)
    {
        var indent = markdown ? "  " : "    ";
        var ifi = restore.InstantFileInitialization switch { true => "enabled", false => "disabled", null => "unknown" };
        var gain = restore.Gain is { } g ? string.Create(CultureInfo.InvariantCulture, $"; gain {(g >= 0 ? "+" : "")}{g * 100:0}%") : string.Empty;
        text.AppendLine(string.Create(CultureInfo.InvariantCulture,
            $"{indent}restore: {(restore.BestOptions is { } best ? $"best {TerminalText.Line(best)} at {Rate(restore.BestMBps)}" : "no best trial")}; defaults {Rate(restore.DefaultsMBps)}{gain}; {restore.Trials.Count} trials; Instant File Initialization {ifi}"));
        foreach (var trial in restore.Trials)
        {
            var zeroing = trial.ZeroingSeconds is { } seconds ? ", zeroing " + Figures.Seconds(seconds) : string.Empty;
            var differs = trial.OptionsDiffer ? $"; effective options differed: {TerminalText.Line(string.Join("; ", trial.Differences))}" : string.Empty;
            text.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"{indent}  restore trial {trial.Number}: {TerminalText.Line(trial.Options)}: {Figures.Rate(trial.RateMBps)} ({trial.Runs} {(trial.Runs == 1 ? "run" : "runs")}), limited by {trial.Limit ?? "not diagnosed"}{zeroing}{differs}"));
        }

        text.AppendLine($"{indent}restore stopped: {TerminalText.Line(restore.StopReason)}");
        foreach (var drop in restore.NotDropped)
        {
            text.AppendLine($"{indent}not dropped: {TerminalText.Line(drop)}");
        }
    }

    private static string Rate(double? mbps) => mbps is null ? "not measured" : Figures.Rate(mbps);

    private static string Gain(TuneRecord tune) => tune.Gain is { } gain
        ? string.Create(CultureInfo.InvariantCulture, $"; gain {(gain >= 0 ? "+" : "")}{gain * 100:0}%{(tune.GainUncertainty is { } u ? $" ± {u * 100:0}%" : "")}")
        : string.Empty;
}
