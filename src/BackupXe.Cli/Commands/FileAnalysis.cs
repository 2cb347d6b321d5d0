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

/// <summary>
/// Runs one <c>backupxe analyze</c>: the captured files through the analysis session, the report written to
/// <paramref name="console"/> (or the output file) as each operation completes, each input's problems on stderr.
/// </summary>
internal sealed class FileAnalysis(CliConsole console)
{
    /// <summary>Below this much input a progress display would only flicker.</summary>
    private const long LargeInputBytes = 64L * 1024 * 1024;

    public async Task<int> RunAsync(AnalyzeSettings settings, CancellationToken cancellationToken)
    {
        var (past, historyError) = await HistoryOptions.LoadAsync(settings.History, console.Error, cancellationToken);
        if (historyError is not null)
        {
            await console.Error.WriteLineAsync(historyError);
            return ExitCodes.NothingUsable;
        }

        var selection = InputSources.OpenAll(settings.Inputs);
        foreach (var repeat in selection.Repeats)
        {
            await console.Error.WriteLineAsync($"backupxe: {repeat}");
        }

        // The report is written while the inputs are read: each operation as it completes, the inputs and
        // the summary at the end. Memory follows the operations in flight, not the operations in the input.
        var renderer = CommonOptions.Renderer(console, settings.Format, settings.Verbose, settings.NoColor, toFile: settings.Output is not null, settings.MemoryBudgetBytes);
        var diagnosis = new DiagnosisSettings { MemoryBudgetBytes = settings.MemoryBudgetBytes };
        var findings = await CommonOptions.WriteReportAsync(console, settings.Output, async writer =>
        {
            var rendered = renderer.Open(writer);
            var compared = past is null ? rendered : new BaselineComparingStream(rendered, past);
            var report = settings.Operations.IsEmpty ? compared : new FilteredReportStream(compared, settings.Operations);
            var found = await RunWithProgressAsync(selection.Sources, diagnosis, report, settings.Inputs, cancellationToken);
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
    }

    private async Task<AnalysisFindings> RunWithProgressAsync(
        IReadOnlyList<ITraceEventSource> sources, DiagnosisSettings diagnosis, IOperationSink sink, IReadOnlyList<string> paths, CancellationToken cancellationToken)
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
