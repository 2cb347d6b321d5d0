using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Analysis;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Pipeline;
using BackupXe.Sources;
using Spectre.Console;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe analyze FILE...</c>: the post-mortem on .xel, XE XML and trace-flag ERRORLOG files.</summary>
internal static class AnalyzeCommand
{
    /// <summary>Below this much input a progress display would only flicker.</summary>
    private const long LargeInputBytes = 64L * 1024 * 1024;

    public static Command Create(CliConsole console)
    {
        var inputs = new Argument<string[]>("inputs")
        {
            Description = "Files to read (- for standard input): .xel (a rollover set as a pattern such as 'trace_0_*.xel'), XE XML (ring_buffer or event_file rows) a SQL Server ERRORLOG, client output (SSMS, sqlcmd, an Agent job step) or Ola Hallengren's job output, told apart by content. Several inputs are merged in time order.",
            Arity = ArgumentArity.OneOrMore,
        };
        var format = CommonOptions.Format();
        var output = CommonOptions.Output();
        var verbose = new Option<bool>("--verbose", "-v") { Description = "Also list messages BackupXe did not recognise." };
        var budget = CommonOptions.MemoryBudget();
        var noColor = CommonOptions.NoColor();
        var filter = new OperationFilter.Options();
        var history = new HistoryOptions();

        var command = new Command("analyze", "Explain the backups and restores recorded in captured files.")
        {
            inputs, format, output, verbose, budget, noColor,
        };
        filter.AddTo(command);
        history.AddTo(command);
        CommonOptions.RejectUnknownOptions(inputs);
        CommonOptions.RefuseHtmlToTerminal(console, command, format, output);
        OutputTarget.MustNotOverwriteWhatIsRead(command, output, result => [.. result.GetValue(inputs) ?? [], .. OutputTarget.SqliteFiles(history.PathOf(result))]);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var paths = parse.GetRequiredValue(inputs);
            var (past, historyError) = await history.LoadAsync(parse, console.Error, cancellationToken);
            if (historyError is not null)
            {
                await console.Error.WriteLineAsync(historyError);
                return ExitCodes.NothingUsable;
            }

            var selection = InputSources.OpenAll(paths);
            foreach (var repeat in selection.Repeats)
            {
                await console.Error.WriteLineAsync($"backupxe: {repeat}");
            }

            // The report is written while the inputs are read: each operation as it completes, the inputs and
            // the summary at the end. Memory follows the operations in flight, not the operations in the input.
            var budgetBytes = CommonOptions.BudgetBytes(parse.GetValue(budget));
            var renderer = CommonOptions.Renderer(console, parse.GetValue(format)!, parse.GetValue(verbose), parse.GetValue(noColor), toFile: parse.GetValue(output) is not null, budgetBytes);
            var diagnosis = new DiagnosisSettings { MemoryBudgetBytes = budgetBytes };
            var findings = await CommonOptions.WriteReportAsync(console, parse.GetValue(output), async writer =>
            {
                var selected = filter.Read(parse, DateTime.Now);
                var rendered = renderer.Open(writer);
                var compared = past is null ? rendered : new BaselineComparingStream(rendered, past);
                var report = selected.IsEmpty ? compared : new FilteredReportStream(compared, selected);
                var found = await RunWithProgressAsync(console, selection.Sources, diagnosis, report, paths, cancellationToken);
                report.Complete(found);
                (report as IDisposable)?.Dispose();
                return found;
            }, cancellationToken);

            foreach (var input in findings.Inputs)
            {
                foreach (var problem in input.Problems)
                {
                    await console.Error.WriteLineAsync(Core.Rendering.TerminalText.Line($"backupxe: {input.Path}: {problem.Location}: {problem.Message}"));
                }
            }

            return ExitCodes.For(findings);
        });
        return command;
    }

    private static async Task<AnalysisFindings> RunWithProgressAsync(
        CliConsole console, IReadOnlyList<ITraceEventSource> sources, DiagnosisSettings diagnosis, IOperationSink sink, IReadOnlyList<string> paths, CancellationToken cancellationToken)
    {
        var size = paths.Sum(p => File.Exists(p) ? new FileInfo(p).Length : 0);
        if (size < LargeInputBytes || console.IsErrorRedirected)
        {
            return await new AnalysisSession(sources, new AnalysisOptions { Diagnosis = diagnosis, CompareRuns = true }).RunAsync(sink, cancellationToken);
        }

        // Progress goes to stderr so that a redirected report (--format json > x.json) stays clean.
        var stderr = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(console.Error) });
        AnalysisFindings? findings = null;
        await stderr.Status().StartAsync($"Reading {Figures.Bytes(size)}...", async context =>
        {
            var progress = new Progress<long>(events => context.Status($"Reading {Figures.Bytes(size)}: {events:N0} events"));
            var session = new AnalysisSession(sources, new AnalysisOptions { Diagnosis = diagnosis, EventsRead = progress, CompareRuns = true });
            findings = await session.RunAsync(sink, cancellationToken);
        });
        return findings!;
    }
}
