using System.CommandLine;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe analyze FILE...</c>: the post-mortem on .xel, XE XML and trace-flag ERRORLOG files.</summary>
internal static class AnalyzeCommand
{
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
        command.SetAction((parse, cancellationToken) => new FileAnalysis(console).RunAsync(
            new AnalyzeSettings
            {
                Inputs = parse.GetRequiredValue(inputs),
                Format = parse.GetValue(format)!,
                Output = parse.GetValue(output),
                Verbose = parse.GetValue(verbose),
                MemoryBudgetBytes = CommonOptions.BudgetBytes(parse.GetValue(budget)),
                NoColor = parse.GetValue(noColor),
                Operations = filter.Read(parse, DateTime.Now),
                History = history.ChoiceOf(parse),
            },
            cancellationToken));
        return command;
    }
}
