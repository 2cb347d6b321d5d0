using System.CommandLine;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe events FILE...</c>: every event of every input with all its fields and actions, one JSON line or CSV
/// row each, streamed. What dbatools' Read-DbaXEFile gives, without Windows or XELite, and how a user checks what
/// BackupXe saw.
/// </summary>
internal static class EventsCommand
{
    /// <param name="console">Standard output is opened as bytes: the listing is UTF-8, written a block at a time.</param>
    public static Command Create(CliConsole console)
    {
        var inputs = new Argument<string[]>("inputs")
        {
            Description = "Files to list: .xel (a rollover set as a pattern such as 'trace_0_*.xel'), XE XML or an ERRORLOG.",
            Arity = ArgumentArity.OneOrMore,
        };
        var format = new Option<string>("--format", "-f") { Description = "jsonl (default: one JSON object per line) or csv.", DefaultValueFactory = _ => "jsonl" };
        Choices.OneOf(format, "jsonl", "csv");
        CommonOptions.RejectUnknownOptions(inputs);
        var names = new Option<string[]>("--name") { Description = "Only events of this name (repeat for several), e.g. --name backup_restore_progress_trace." };
        var output = CommonOptions.Output();

        var command = new Command("events", "List every event of captured files with all fields and actions.") { inputs, format, names, output, CommonOptions.NoColor() };
        OutputTarget.MustNotOverwriteWhatIsRead(command, output, result => result.GetValue(inputs) ?? []);
        command.SetAction((parse, cancellationToken) => new EventLister(console).RunAsync(
            new EventsSettings
            {
                Inputs = parse.GetRequiredValue(inputs),
                Format = parse.GetValue(format)!,
                Names = parse.GetValue(names) is { Length: > 0 } chosen ? new HashSet<string>(chosen, StringComparer.OrdinalIgnoreCase) : null,
                Output = parse.GetValue(output),
            },
            cancellationToken));
        return command;
    }
}
