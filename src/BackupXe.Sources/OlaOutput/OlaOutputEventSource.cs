using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.OlaOutput;

/// <summary>
/// Ola Hallengren's job output as trace events: per command, the engine's messages the output printed (no clock, as
/// all client output), then the client's own span of the command (<see cref="ClientCommandEvent"/>), which joins the
/// operation those messages made. The span is what lets a diagnosis tell time spent in the operation from time the
/// command spent waiting before or after it.
/// </summary>
internal sealed class OlaOutputEventSource : ISynchronousTraceEventSource
{
    /// <summary>Named in the evidence: where the client's span comes from.</summary>
    public const string SpanSource = "Ola Hallengren's job output, to the second";

    private readonly Func<Stream> _open;
    private readonly Encoding _encodingWithoutBom;

    public OlaOutputEventSource(string name, Func<Stream> open, Encoding? encodingWithoutBom)
    {
        Name = name;
        _open = open;
        _encodingWithoutBom = encodingWithoutBom ?? new UTF8Encoding(encoderShouldEmitUTF8Identifier: false);
    }

    public string Name { get; }

    public string Format => ImportFile.OlaOutputFormat;

    public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken)
        => ReadEvents(status, cancellationToken).ToAsyncEnumerable();

    /// <summary>
    /// The same events without awaiting: the output is read block by block, so a folder of job outputs is read ahead,
    /// one thread each, before the merge (docs/performance.md, "Many inputs at once").
    /// </summary>
    public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
    {
        if (TextInput.Open(_open, _encodingWithoutBom, status) is not { } text)
        {
            yield break;
        }

        var reader = new OlaJobOutputReader(Name);
        var reported = 0;
        var commands = 0;
        using (text)
        {
            using var lines = new OlaCommandEnumerator(reader.ReadCommands(text).GetEnumerator(), status);
            while (lines.MoveNext())
            {
                cancellationToken.ThrowIfCancellationRequested();
                for (; reported < reader.Problems.Count; reported++)
                {
                    status.Report(reader.Problems[reported].Location, reader.Problems[reported].Message);
                }

                commands++;
                status.Server = reader.ServerVersion;
                var current = lines.Current;
                var (operation, messages, command) = current;
                foreach (var message in messages)
                {
                    status.Events++;
                    yield return new ProgressTraceEvent(TraceEvent.NoClock, null, current.Kind, current.Database, message.Text);
                }

                if (command is null)
                {
                    // Messages whose command the excerpt cut: they make their operation, with no span of the client's.
                    continue;
                }

                if (operation?.End is null && messages.Count == 0)
                {
                    // Nothing else would make this command an operation of analyze's, although the history keeps it.
                    status.Events++;
                    yield return new ClientCommandUnfinishedEvent(TraceEvent.NoClock, command.Kind, command.Scope, command.Database);
                }
                else if (operation?.End is { } end && end >= operation.Start)
                {
                    status.Events++;
                    yield return new ClientCommandEvent(TraceEvent.NoClock, operation.Kind, operation.Scope, operation.Database,
                        operation.Start, end, operation.TimeResolutionSeconds, SpanSource, operation.Status == OperationStatus.Completed, Requested(operation));
                }
            }
        }

        for (; reported < reader.Problems.Count; reported++)
        {
            status.Report(reader.Problems[reported].Location, reader.Problems[reported].Message);
        }

        foreach (var finding in reader.Findings)
        {
            status.Find(finding.Location, finding.Message);
        }

        foreach (var execution in reader.Executions)
        {
            if (execution.Sentence() is { } jobTime)
            {
                status.Find(string.Create(System.Globalization.CultureInfo.InvariantCulture, $"line {execution.HeaderLine}"), jobTime);
            }
        }

        if (commands == 0)
        {
            status.Unusable = true;
            status.Report("file", "no BACKUP or RESTORE command found");
        }
    }

    /// <summary>The command's devices (stripes, mirrors left out) and stated options, as CommandExecute printed them.</summary>
    private static RequestedReport Requested(Core.History.HistoryOperation operation) => new(
        operation.Devices.Where(d => d.Path is not null && !d.IsMirror).Select(d => d.Path!).ToList(),
        operation.Options.BufferCount,
        operation.Options.MaxTransferSizeBytes,
        operation.Options.BlockSizeBytes,
        operation.Options.Compression,
        operation.Options.Checksum,
        operation.Options.CopyOnly == true,
        "the job's command");

    // A read error ends the output where it happens, located; the commands before it are analysed.
    private sealed class OlaCommandEnumerator(IEnumerator<OlaCommand> inner, SourceStatus status) : IDisposable
    {
        public OlaCommand Current => inner.Current;

        public bool MoveNext()
        {
            try
            {
                return inner.MoveNext();
            }
            catch (IOException e)
            {
                status.Report("file", $"reading stopped: {e.Message}");
                return false;
            }
        }

        public void Dispose() => inner.Dispose();
    }
}
