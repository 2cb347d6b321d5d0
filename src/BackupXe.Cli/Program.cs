using System.CommandLine;
using BackupXe.Cli.Commands;

namespace BackupXe.Cli;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        try
        {
            // Our own handler below: the default one prints a stack trace, which a DBA should never see.
            return await BuildRoot().Parse(args).InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false });
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

    public static RootCommand BuildRoot()
    {
        var root = new RootCommand("BackupXe explains why a SQL Server backup or restore is slow.");
        root.Subcommands.Add(AnalyzeCommand.Create());
        root.Subcommands.Add(WatchCommand.Create());
        root.Subcommands.Add(SessionCommand.Create());
        root.Subcommands.Add(CheckCommand.Create());
        root.Subcommands.Add(HistoryCommand.Create());
        return root;
    }
}
