using System.CommandLine;
using BackupXe.Cli.Commands;

namespace BackupXe.Cli;

internal static class Program
{
    public static Task<int> Main(string[] args) => RunAsync(args, CliConsole.Process());

    /// <param name="console">Where the verbs write: the process's console in <see cref="Main"/>, a capture in a test.</param>
    public static Task<int> RunAsync(string[] args, CliConsole console) => RunAsync(args, console, TimeProvider.System);

    /// <param name="time">The clock watch's replay and quiet ticks are timed on: a test's fake one.</param>
    public static async Task<int> RunAsync(string[] args, CliConsole console, TimeProvider time)
    {
        try
        {
            // Our own handler below: the default one prints a stack trace, which a DBA should never see.
            var parse = BuildRoot(console, time).Parse(args);
            if (UsageErrors.Refused(parse))
            {
                foreach (var line in UsageErrors.Lines(parse))
                {
                    await console.Error.WriteLineAsync(line);
                }

                return Analysis.ExitCodes.NothingUsable;
            }

            return await parse.InvokeAsync(Invocation(console));
        }
        catch (OperationCanceledException)
        {
            return 130;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or ArgumentException or InvalidOperationException)
        {
            await console.Error.WriteLineAsync($"backupxe: {SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message)}");
            return Analysis.ExitCodes.NothingUsable;
        }
    }

    /// <summary>How a parsed command line runs: usage errors and help written to <paramref name="console"/>.</summary>
    public static InvocationConfiguration Invocation(CliConsole console) => new()
    {
        // Our own handler in RunAsync: the default one prints a stack trace, which a DBA should never see.
        EnableDefaultExceptionHandler = false,
        Output = console.Out,
        Error = console.Error,
    };

    public static RootCommand BuildRoot(CliConsole? console = null, TimeProvider? time = null)
    {
        var root = new RootCommand("BackupXe explains why a SQL Server backup or restore is slow.");
        console ??= CliConsole.Process();
        root.Subcommands.Add(AnalyzeCommand.Create(console));
        root.Subcommands.Add(EventsCommand.Create(console));
        root.Subcommands.Add(WatchCommand.Create(console, time));
        root.Subcommands.Add(SessionCommand.Create(console));
        root.Subcommands.Add(CheckCommand.Create(console));
        root.Subcommands.Add(HistoryCommand.Create(console));
        root.Subcommands.Add(TuneCommand.Create(console));
        root.Subcommands.Add(RestoreDrillCommand.Create(console));
        root.Subcommands.Add(FleetCommand.Create(console));
        return root;
    }
}
