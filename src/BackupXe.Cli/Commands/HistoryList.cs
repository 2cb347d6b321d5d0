using System.Globalization;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Baselines;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Reporting;
using BackupXe.History;
using Spectre.Console;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe history</c>: the listed operations, each against its usual runs, and each series' statistics,
/// read only from the history file and written to <paramref name="console"/> or the output file.
/// </summary>
internal sealed class HistoryList(CliConsole console)
{
    public async Task<int> RunAsync(HistorySettings settings, CancellationToken cancellationToken)
    {
        // The same file analyze --history finds: the daemon's setting, then this folder, then the service's data folder.
        var file = settings.Path ?? DaemonHistory.Path();
        if (!File.Exists(file))
        {
            await console.Error.WriteLineAsync(settings.Path is null
                ? $"backupxe: no daemon history found (looked at {string.Join(", ", DaemonHistory.Candidates().Select(c => $"'{c}'"))}): name the file with --path FILE."
                : $"backupxe: no history at '{file}': the daemon writes it (History:Path); name it with --path.");
            return ExitCodes.NothingUsable;
        }

        var operations = settings.Operations;

        // Read-only: the CLI never creates, alters or switches the journal of the file it is pointed at.
        var store = SqliteHistoryStore.ForReading(file, TimeProvider.System);
        HistoryRead read;
        IReadOnlyList<HistoryEntry> entries = [];
        IReadOnlyList<SeriesFigures> series;
        try
        {
            await store.VerifyAsync(cancellationToken);
            read = await store.ReadAsync(new HistoryQuery(settings.Instance, null, settings.Kind, settings.Limit)
            {
                Databases = operations.Databases.Count > 0 ? [.. operations.Databases] : null,
                Since = operations.Since,
                Until = operations.Until,
            }, cancellationToken);
            if (settings.Format is "html" or "console")
            {
                entries = await JudgeAsync(store, read.Operations, cancellationToken);
            }

            series = await HistorySeriesReader.ReadAsync(file, settings.Instance, operations, settings.Kind, console.Error, cancellationToken);
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

        var rows = read.Operations;
        await CommonOptions.WriteAsync(console, settings.Output, writer =>
        {
            switch (settings.Format)
            {
                case "json":
                    writer.WriteLine(ReportJson.Serialize(new SeriesListing(rows.Select(r => new SeriesListingEntry(r.Instance, r.Report)), series), indented: true));
                    break;
                case "markdown":
                    HistoryStatisticsWriter.WriteMarkdown(writer, series);
                    break;
                case "csv":
                    HistoryStatisticsWriter.WriteCsv(writer, series);
                    break;
                case "html":
                    var html = new HtmlReportWriter(writer, "BackupXe history");
                    html.WriteHistory([.. entries.OrderBy(e => e.Report.Start ?? DateTime.MaxValue)]);
                    html.Finish(null);
                    break;
                default:
                    var toFile = settings.Output is not null;
                    Render(Terminal.On(writer, Terminal.UsesColor(console, settings.NoColor, toFile), Terminal.Width(console, toFile)), entries);
                    writer.WriteLine();
                    HistoryStatisticsWriter.WriteText(writer, series);
                    break;
            }
        }, cancellationToken);

        return read.Problems.Count > 0 ? ExitCodes.Partial : ExitCodes.Success;
    }

    /// <summary>
    /// Each listed operation against the daemon's own rule (docs/history.md, "The regression rule"), with its default
    /// settings: the baseline is the series' usual runs before it in the whole history, not only the listed ones.
    /// </summary>
    private static async Task<IReadOnlyList<HistoryEntry>> JudgeAsync(SqliteHistoryStore store, IReadOnlyList<StoredOperation> rows, CancellationToken cancellationToken)
    {
        var detector = new StoredBaselines(store, new BaselineComparisonSettings());
        var entries = new List<HistoryEntry>(rows.Count);
        foreach (var row in rows)
        {
            var comparison = await detector.CompareAsync(row.Instance, row.Report, cancellationToken);
            entries.Add(new HistoryEntry(row.Instance, row.Report, comparison?.MedianMBps, comparison?.Verdict == BaselineVerdict.Slower));
        }

        return entries;
    }

    private static void Render(IAnsiConsole console, IReadOnlyList<HistoryEntry> rows)
    {
        if (rows.Count == 0)
        {
            console.WriteLine("No operations match.");
            return;
        }

        var table = new Table().Border(TableBorder.Simple).Title("History");
        table.AddColumns("Start", "Instance", "Operation", "Duration", "Throughput", "vs median", "Status", "Bottleneck");
        foreach (var row in rows)
        {
            var op = row.Report;
            // Text, not markup: "[Sales]" in a title would otherwise be read as a style tag.
            string[] cells =
            [
                Figures.Timestamp(op.Start),
                row.Instance,
                OperationText.Title(op.Kind, op.Scope, op.Database, sessionId: null),
                Figures.Duration(op.DurationSeconds),
                Figures.Rate(op.ThroughputMBps),
                Trend(row),
                Kebab.Of(op.Status),
                op.Verdict is { } v ? Kebab.Of(v.Bottleneck) : "-",
            ];
            table.AddRow(cells.Select(cell => new Text(TerminalText.Line(cell))));
        }

        console.Write(table);
    }

    /// <summary>
    /// This operation's throughput against the median of its series' usual earlier runs in the whole history (the
    /// regression rule's window), whatever the listing shows; "-" until the series has the rule's minimum of runs.
    /// </summary>
    private static string Trend(HistoryEntry row) =>
        row.Report.ThroughputMBps is { } rate && row.MedianMBps is > 0 and var median
            ? string.Create(CultureInfo.InvariantCulture, $"{rate / median * 100:0}%")
            : "-";
}
