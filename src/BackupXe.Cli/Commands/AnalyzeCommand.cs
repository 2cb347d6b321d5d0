using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Diagnosis;
using BackupXe.Sources;
using Spectre.Console;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe analyze FILE...</c>: the post-mortem on .xel, XE XML and trace-flag ERRORLOG files.</summary>
public static class AnalyzeCommand
{
    /// <summary>Below this much input a progress display would only flicker.</summary>
    private const long LargeInputBytes = 64L * 1024 * 1024;

    public static Command Create()
    {
        var inputs = new Argument<string[]>("inputs")
        {
            Description = "Files to read: .xel, XE XML (ring_buffer or event_file rows) or a SQL Server ERRORLOG. Rollover files of one session are merged in time order.",
            Arity = ArgumentArity.OneOrMore,
        };
        var format = CommonOptions.Format();
        var output = CommonOptions.Output();
        var verbose = new Option<bool>("--verbose", "-v") { Description = "Also list messages BackupXe did not recognise." };
        var budget = CommonOptions.MemoryBudget();
        var noColor = CommonOptions.NoColor();

        var command = new Command("analyze", "Explain the backups and restores recorded in captured files.")
        {
            inputs, format, output, verbose, budget, noColor,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var paths = parse.GetRequiredValue(inputs);
            var sources = paths.Select(InputSources.Open).ToList();
            var budgetBytes = CommonOptions.BudgetBytes(parse.GetValue(budget));
            var analyzer = new Analyzer(new DiagnosisSettings { MemoryBudgetBytes = budgetBytes });

            var result = await RunWithProgressAsync(analyzer, sources, paths, cancellationToken);

            foreach (var (input, status) in result.Report.Inputs.Zip(result.Statuses))
            {
                foreach (var problem in status.Problems)
                {
                    await Console.Error.WriteLineAsync($"backupxe: {input.Path}: {problem.Location}: {problem.Message}");
                }
            }

            var renderer = CommonOptions.Renderer(parse.GetValue(format)!, parse.GetValue(verbose), color: !parse.GetValue(noColor) && parse.GetValue(output) is null, budgetBytes);
            await CommonOptions.WriteAsync(parse.GetValue(output), writer => renderer.Render(result.Report, writer), cancellationToken);
            return result.ExitCode;
        });
        return command;
    }

    private static async Task<AnalysisResult> RunWithProgressAsync(Analyzer analyzer, IReadOnlyList<Core.Events.ITraceEventSource> sources, IReadOnlyList<string> paths, CancellationToken cancellationToken)
    {
        var size = paths.Sum(p => File.Exists(p) ? new FileInfo(p).Length : 0);
        if (size < LargeInputBytes || Console.IsErrorRedirected)
        {
            return await analyzer.AnalyzeAsync(sources, null, cancellationToken);
        }

        // Progress goes to stderr so that a redirected report (--format json > x.json) stays clean.
        var stderr = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(Console.Error) });
        AnalysisResult? result = null;
        await stderr.Status().StartAsync($"Reading {Core.Reporting.Units.Bytes(size)}...", async context =>
        {
            var progress = new Progress<long>(events => context.Status($"Reading {Core.Reporting.Units.Bytes(size)}: {events:N0} events"));
            result = await analyzer.AnalyzeAsync(sources, progress, cancellationToken);
        });
        return result!;
    }
}
