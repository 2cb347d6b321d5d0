using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.Sources.XeEvents;

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
        command.SetAction(async (parse, cancellationToken) =>
        {
            var wanted = parse.GetValue(names) is { Length: > 0 } chosen ? new HashSet<string>(chosen, StringComparer.OrdinalIgnoreCase) : null;
            var paths = parse.GetRequiredValue(inputs);
            var csv = parse.GetValue(format) == "csv";
            var columns = new XeNames();
            if (csv && await CsvColumnsAsync(paths, columns, cancellationToken) is { } refused)
            {
                await console.Error.WriteLineAsync(refused);
                return ExitCodes.NothingUsable;
            }

            var statuses = new List<SourceStatus>();
            var seen = new EventNames();
            EventListWriter list;
            await using (var target = new ReportOutput(parse.GetValue(output), console))
            {
                var buffer = new OutputBuffer(target.Bytes);
                list = EventListWriter.For(parse.GetValue(format)!, buffer, columns);
                list.Start();
                foreach (var source in paths.Select(InputSources.Open))
                {
                    var status = new SourceStatus();
                    statuses.Add(status);
                    if (source is IXeEventBatchSource batches)
                    {
                        List(batches, status, list, buffer, new EventListBatches(parse.GetValue(format)!, columns, wanted), seen, cancellationToken);
                    }
                    else
                    {
                        await ListAsync(source, status, wanted, list, seen, cancellationToken);
                    }

                    await buffer.FlushAsync(cancellationToken);
                    foreach (var problem in status.Problems)
                    {
                        await console.Error.WriteLineAsync(Core.Rendering.TerminalText.Line($"backupxe: {source.Name}: {problem.Location}: {problem.Message}"));
                    }
                }
            }

            // A name that matched nothing is a question left unanswered: say which names there were to choose from.
            if (wanted is not null && seen.Listed == 0 && seen.Any)
            {
                await console.Error.WriteLineAsync($"backupxe: no event named {string.Join(" or ", wanted.Order(StringComparer.Ordinal))}; the input holds {seen.Describe()}");
                return ExitCodes.NothingUsable;
            }

            if (list is CsvEventListWriter { Unplaced.Count: > 0 } rows)
            {
                await console.Error.WriteLineAsync($"backupxe: {string.Join(", ", rows.Unplaced.Select(Core.Rendering.TerminalText.Line))} appeared after the CSV header was written (an input changed between its two reads): their values are not listed; list them with --format jsonl");
                return ExitCodes.Partial;
            }

            return ExitCodes.For(statuses);
        });
        return command;
    }

    /// <summary>
    /// The first of the two passes a CSV listing makes: the union of the inputs' field and action names, read without
    /// reading events where the format declares them (docs/options.md). Null when done; else the one line that says
    /// why the listing cannot be made.
    /// </summary>
    private static Task<string?> CsvColumnsAsync(string[] paths, XeNames columns, CancellationToken cancellationToken) => Task.Run(
        () =>
        {
            foreach (var path in paths)
            {
                if (path == InputSources.StandardInput)
                {
                    return "backupxe: -: events --format csv reads each input twice (its field names first, for the header) and standard input can be read once: give a file, or use --format jsonl";
                }

                if (InputSources.Open(path) is IXeEventSource source)
                {
                    source.AddNames(columns, cancellationToken);
                    if (columns.Overflowed)
                    {
                        return string.Create(System.Globalization.CultureInfo.InvariantCulture, $"backupxe: {Core.Rendering.TerminalText.Line(path)}: more than {XeNames.MaxNames:N0} distinct field and action names, more than a CSV header should hold: use --format jsonl");
                    }
                }
            }

            return null;
        },
        cancellationToken);

    /// <summary>A source decoded in batches: each batch listed where it was decoded, the parts copied out in order.</summary>
    private static void List(IXeEventBatchSource source, SourceStatus status, EventListWriter list, OutputBuffer output, EventListBatches batches, EventNames seen, CancellationToken cancellationToken)
    {
        foreach (var part in source.ReadXeEventBatches(status, batches.Start, cancellationToken))
        {
            batches.CopyOut(part, output, seen, list);
        }
    }

    private static async Task ListAsync(ITraceEventSource source, SourceStatus status, HashSet<string>? wanted, EventListWriter list, EventNames seen, CancellationToken cancellationToken)
    {
        if (source is not IXeEventSource listing)
        {
            // An input that cannot be read lists nothing; reading it fills the status with the reason.
            await foreach (var _ in source.ReadEventsAsync(status, cancellationToken))
            {
            }

            return;
        }

        await foreach (var xeEvent in listing.ReadXeEventsAsync(status, cancellationToken))
        {
            var listed = wanted is null || wanted.Contains(xeEvent.Name);
            seen.Add(xeEvent.Name, listed);
            if (listed)
            {
                list.Write(xeEvent);
            }
        }
    }
}
