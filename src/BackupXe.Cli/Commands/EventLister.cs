using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe events</c>: every event of every input, one JSON line or CSV row each, streamed to
/// <paramref name="console"/>'s standard output as bytes (or the output file); each input's problems on stderr.
/// </summary>
internal sealed class EventLister(CliConsole console)
{
    public async Task<int> RunAsync(EventsSettings settings, CancellationToken cancellationToken)
    {
        var wanted = settings.Names;
        var paths = settings.Inputs;
        var csv = settings.Format == "csv";
        var columns = new XeNames();
        if (csv && await CsvColumnsAsync(paths, columns, cancellationToken) is { } refused)
        {
            await console.Error.WriteLineAsync(refused);
            return ExitCodes.NothingUsable;
        }

        var statuses = new List<SourceStatus>();
        var seen = new EventNames();
        EventListWriter list;
        await using (var target = new ReportOutput(settings.Output, console))
        {
            var buffer = new OutputBuffer(target.Bytes);
            list = EventListWriter.For(settings.Format, buffer, columns);
            list.Start();
            foreach (var source in paths.Select(InputSources.Open))
            {
                var status = new SourceStatus();
                statuses.Add(status);
                if (source is IXeEventBatchSource batches)
                {
                    List(batches, status, list, buffer, new EventListBatches(settings.Format, columns, wanted), seen, cancellationToken);
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
    }

    /// <summary>
    /// The first of the two passes a CSV listing makes: the union of the inputs' field and action names, read without
    /// reading events where the format declares them (docs/options.md). Null when done; else the one line that says
    /// why the listing cannot be made.
    /// </summary>
    private static Task<string?> CsvColumnsAsync(IReadOnlyList<string> paths, XeNames columns, CancellationToken cancellationToken) => Task.Run(
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
