using System.CommandLine;
using BackupXe.Cli.Commands;

namespace BackupXe.Cli;

public static class Program
{
    public static Task<int> Main(string[] args) => BuildRoot().Parse(args).InvokeAsync();

    public static RootCommand BuildRoot()
    {
        var root = new RootCommand("BackupXe explains why a SQL Server backup or restore is slow.");
        root.Subcommands.Add(AnalyzeCommand.Create());
        root.Subcommands.Add(WatchCommand.Create());
        return root;
    }
}
