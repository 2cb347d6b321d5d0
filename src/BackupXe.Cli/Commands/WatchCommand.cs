using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Analysis;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.SqlServer;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe watch</c>: live progress and the verdict of each backup/restore as it ends. <c>--replay</c> drives the
/// same pipeline from a captured file with its original timing.
/// </summary>
public static class WatchCommand
{
    public static Command Create(TimeProvider? time = null)
    {
        var server = new Option<string?>("--server", "-S") { Description = "SQL Server instance to watch live." };
        var database = new Option<string?>("--database", "-d") { Description = "Only this database." };
        var replay = new Option<string?>("--replay") { Description = "Replay a .xel / XE XML / ERRORLOG file through the live pipeline instead of connecting." };
        var speed = new Option<double>("--speed") { Description = "Replay speed: 1 = original timing, 10 = ten times faster, 0 = as fast as possible.", DefaultValueFactory = _ => 1 };
        var format = new Option<string>("--format", "-f") { Description = "console (default) or json (one report object per line, as each operation ends).", DefaultValueFactory = _ => "console" };
        format.AcceptOnlyFromAmong("console", "json");
        var budget = CommonOptions.MemoryBudget();
        var noColor = CommonOptions.NoColor();

        var command = new Command("watch", "Watch backups and restores live, with a diagnosis of each one as it completes.")
        {
            server, database, replay, speed, format, budget, noColor,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var replayPath = parse.GetValue(replay);
            if (replayPath is null)
            {
                await Console.Error.WriteLineAsync(LiveUnavailable.Message(parse.GetValue(server)));
                return ExitCodes.NothingUsable;
            }

            var source = new ReplayEventSource(InputSources.Open(replayPath), parse.GetValue(speed), time ?? TimeProvider.System);
            var json = parse.GetValue(format) == "json";
            var renderer = CommonOptions.ConsoleRenderer(verbose: false, color: !parse.GetValue(noColor));
            var view = new WatchView(Console.Out, renderer, parse.GetValue(database), json);
            var settings = new DiagnosisSettings { MemoryBudgetBytes = CommonOptions.BudgetBytes(parse.GetValue(budget)) };
            var findings = await RunAsync(source, view, settings, cancellationToken);

            foreach (var problem in findings.Inputs.SelectMany(input => input.Problems))
            {
                await Console.Error.WriteLineAsync($"backupxe: {replayPath}: {problem.Location}: {problem.Message}");
            }

            return ExitCodes.For(findings);
        });
        return command;
    }

    /// <summary>
    /// The analysis session with the view attached: each diagnosis as it ends, and, for the console only,
    /// progress after each trace message (JSON Lines show no progress, so no snapshot is built for them).
    /// </summary>
    public static Task<AnalysisFindings> RunAsync(ITraceEventSource source, WatchView view, DiagnosisSettings settings, CancellationToken cancellationToken)
        => new AnalysisSession([source], new AnalysisOptions { Diagnosis = settings, OnProgress = view.WantsProgress ? view.ShowProgress : null })
            .RunAsync(view, cancellationToken);
}

/// <summary>Why this build cannot watch a server live, and what to do instead.</summary>
public static class LiveUnavailable
{
    public static string Message(string? server)
        => $"backupxe: watching {(server is null ? "a server" : $"'{server}'")} live needs Microsoft.Data.SqlClient and Microsoft.SqlServer.XEvent.XELite, "
            + "which this build does not include (the package source could not provide them). Install the capture session with "
            + "'backupxe session script > backupxe-session.sql' run in SSMS or sqlcmd, then analyse its files with 'backupxe analyze', "
            + "or replay a capture with 'backupxe watch --replay FILE'.";
}
