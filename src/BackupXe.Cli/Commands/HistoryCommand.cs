using System.CommandLine;
using System.Globalization;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Rendering.Html;
using BackupXe.History;
using Spectre.Console;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe history</c>: past operations from the daemon's history file, with each series' trend.</summary>
internal static class HistoryCommand
{
    public static Command Create(CliConsole console)
    {
        var path = new Option<string?>("--path")
        {
            Description = $"The daemon's SQLite history file (History:Path in appsettings.json); without it, found as --history alone finds it: {DaemonHistory.Variable}, else {SqliteHistoryStore.DefaultPath} here, else the service's data folder.",
        };
        var filter = new OperationFilter.Options();
        var instance = new Option<string?>("--instance", "-i") { Description = "Only this instance (its configured name)." };
        var kind = new Option<string?>("--kind") { Description = "backup or restore." };
        Choices.OneOf(kind, "backup", "restore");
        var limit = new Option<int>("--limit", "-n") { Description = "Most recent operations to list.", DefaultValueFactory = _ => 50 };
        limit.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 1)
            {
                result.AddError($"--limit must be at least 1; it is {result.GetValueOrDefault<int>()}.");
            }
        });
        var format = new Option<string>("--format", "-f")
        {
            Description = "console (default), json, markdown or csv (per-series statistics), or html (throughput per database over time with the regression rule's verdicts; docs/html-report.md).",
            DefaultValueFactory = _ => "console",
        };
        Choices.OneOf(format, "console", "json", "markdown", "csv", "html");
        var output = CommonOptions.Output();
        var noColor = CommonOptions.NoColor();

        var command = new Command("history", "List past backups and restores and how their throughput trends.") { path, instance, kind, limit, format, output, noColor };
        filter.AddTo(command);
        OutputTarget.MustNotOverwriteWhatIsRead(command, output, result => OutputTarget.SqliteFiles(result.GetValue(path) ?? DaemonHistory.Path()));
        CommonOptions.RefuseHtmlToTerminal(console, command, format, output);
        command.Subcommands.Add(HistoryImportCommand.Create(console));
        command.Subcommands.Add(HistoryChainCommand.Create(console));
        command.Subcommands.Add(HistoryRestoreEstimateCommand.Create(console));
        command.Subcommands.Add(HistoryTunesCommand.Create(console));
        command.SetAction(async (parse, cancellationToken) =>
        {
            // The same file analyze --history finds: the daemon's setting, then this folder, then the service's data folder.
            var named = parse.GetValue(path);
            var file = named ?? DaemonHistory.Path();
            if (!File.Exists(file))
            {
                await console.Error.WriteLineAsync(named is null
                    ? $"backupxe: no daemon history found (looked at {string.Join(", ", DaemonHistory.Candidates().Select(c => $"'{c}'"))}): name the file with --path FILE."
                    : $"backupxe: no history at '{file}': the daemon writes it (History:Path); name it with --path.");
                return ExitCodes.NothingUsable;
            }

            var operations = filter.Read(parse, DateTime.Now);

            // Read-only: the CLI never creates, alters or switches the journal of the file it is pointed at.
            var store = SqliteHistoryStore.ForReading(file, TimeProvider.System);
            HistoryRead read;
            IReadOnlyList<HistoryEntry> entries = [];
            IReadOnlyList<SeriesFigures> series;
            try
            {
                await store.VerifyAsync(cancellationToken);
                var kindValue = parse.GetValue(kind) switch { "backup" => OperationKind.Backup, "restore" => OperationKind.Restore, _ => (OperationKind?)null };
                read = await store.ReadAsync(new HistoryQuery(parse.GetValue(instance), null, kindValue, parse.GetValue(limit))
                {
                    Databases = operations.Databases.Count > 0 ? [.. operations.Databases] : null,
                    Since = operations.Since,
                    Until = operations.Until,
                }, cancellationToken);
                if (parse.GetValue(format) is "html" or "console")
                {
                    entries = await JudgeAsync(store, read.Operations, cancellationToken);
                }
                series = await HistorySeriesReader.ReadAsync(file, parse.GetValue(instance), operations, kindValue, console.Error, cancellationToken);
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
            var selected = parse.GetValue(format);
            await CommonOptions.WriteAsync(console, parse.GetValue(output), writer =>
            {
                switch (selected)
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
                        var toFile = parse.GetValue(output) is not null;
                        Render(Terminal.On(writer, Terminal.UsesColor(console, parse.GetValue(noColor), toFile), Terminal.Width(console, toFile)), entries);
                        writer.WriteLine();
                        HistoryStatisticsWriter.WriteText(writer, series);
                        break;
                }
            }, cancellationToken);

            return read.Problems.Count > 0 ? ExitCodes.Partial : ExitCodes.Success;
        });
        return command;
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
