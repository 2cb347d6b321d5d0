using System.CommandLine;
using BackupXe.Cli.Commands;

namespace BackupXe.Cli;

internal static class Program
{
    public static Task<int> Main(string[] args) => RunAsync(args, Console.OpenStandardOutput);

    /// <param name="standardOutput">
    /// Opens standard output as bytes: the process's own in <see cref="Main"/>; a test that captures
    /// <see cref="Console.Out"/> passes one that lands in the same place.
    /// </param>
    public static async Task<int> RunAsync(string[] args, Func<Stream> standardOutput)
    {
        try
        {
            // Our own handler below: the default one prints a stack trace, which a DBA should never see.
            var parse = BuildRoot(standardOutput).Parse(args);
            if (UsageErrors.Refused(parse))
            {
                foreach (var line in UsageErrors.Lines(parse))
                {
                    await Console.Error.WriteLineAsync(line);
                }

                return Analysis.ExitCodes.NothingUsable;
            }

            return await parse.InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false });
        }
        catch (OperationCanceledException)
        {
            return 130;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or ArgumentException or InvalidOperationException)
        {
            await Console.Error.WriteLineAsync($"backupxe: {SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message)}");
            return Analysis.ExitCodes.NothingUsable;
        }
    }

    public static RootCommand BuildRoot(Func<Stream>? standardOutput = null)
    {
        var root = new RootCommand("BackupXe explains why a SQL Server backup or restore is slow.");
        standardOutput ??= Console.OpenStandardOutput;
        root.Subcommands.Add(AnalyzeCommand.Create(standardOutput));
        root.Subcommands.Add(EventsCommand.Create(standardOutput));
        root.Subcommands.Add(WatchCommand.Create(standardOutput));
        root.Subcommands.Add(SessionCommand.Create());
        root.Subcommands.Add(CheckCommand.Create());
        root.Subcommands.Add(HistoryCommand.Create());
        root.Subcommands.Add(TuneCommand.Create());
        return root;
    }
}
