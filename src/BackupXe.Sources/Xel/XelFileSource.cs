using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>
/// Extended Events event_file (.xel) input, read by BackupXe's own decoder: one file, a rollover set read in
/// file order (each file with its own metadata and clock), or any stream of the same bytes. One log buffer is in
/// memory at a time, so memory does not grow with the files.
/// </summary>
public sealed class XelFileSource : ITraceEventSource, IXeEventSource
{
    private readonly IReadOnlyList<(string Label, Func<Stream> Open)> _inputs;
    private readonly IReadOnlyList<(string File, string Problem)> _skipped = [];

    /// <summary>Reads the file at <paramref name="path"/>.</summary>
    public XelFileSource(string path)
        : this(path, [path])
    {
    }

    /// <summary>Reads <paramref name="files"/> one after the other, in the order given (a rollover set).</summary>
    /// <param name="name">What the user named (a pattern, for a set), reported as <see cref="Name"/>.</param>
    /// <param name="skipped">Members of the set that are not read (file name, why), reported before the others are read.</param>
    public XelFileSource(string name, IReadOnlyList<string> files, IReadOnlyList<(string File, string Problem)>? skipped = null)
    {
        Name = name;
        var labelled = files.Count > 1 || skipped is { Count: > 0 };
        _inputs = files.Select(f => (labelled ? Path.GetFileName(f) : string.Empty, (Func<Stream>)(() => InputFile.OpenRead(f)))).ToList();
        _skipped = skipped ?? [];
    }

    /// <param name="name">What the user named, reported as <see cref="Name"/>.</param>
    /// <param name="open">Opens the content; called once per read. Need not be seekable.</param>
    public XelFileSource(string name, Func<Stream> open)
    {
        Name = name;
        _inputs = [(string.Empty, open)];
    }

    public string Name { get; }

    public string Format => "xel";

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var batch = new List<TraceEvent>();
        await foreach (var _ in ReadBuffersAsync(status, null, batch, cancellationToken).ConfigureAwait(false))
        {
            foreach (var traceEvent in batch)
            {
                yield return traceEvent;
            }

            batch.Clear();
        }
    }

    public async IAsyncEnumerable<XeEvent> ReadXeEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var batch = new List<XeEvent>();
        await foreach (var _ in ReadBuffersAsync(status, batch, null, cancellationToken).ConfigureAwait(false))
        {
            foreach (var xeEvent in batch)
            {
                yield return xeEvent;
            }

            batch.Clear();
        }
    }

    /// <summary>Decodes buffer after buffer into the list given; yields after each one so the caller can drain it.</summary>
    private async IAsyncEnumerable<bool> ReadBuffersAsync(
        SourceStatus status,
        List<XeEvent>? whole,
        List<TraceEvent>? analysed,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var readable = 0;
        foreach (var (file, problem) in _skipped)
        {
            status.Report(file, problem);
        }

        foreach (var (label, open) in _inputs)
        {
            Stream stream;
            try
            {
                stream = open();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                status.Report(label.Length == 0 ? "file" : label, $"cannot be opened: {e.Message}");
                continue;
            }

            await using (stream.ConfigureAwait(false))
            {
                var file = new XelFileRead(stream, label, status);
                foreach (var _ in file.Decode(whole, analysed))
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    yield return true;
                }

                file.ReportUnlisted();
                if (!file.Rejected)
                {
                    readable++;
                }
            }
        }

        if (readable == 0 && status.Events == 0)
        {
            status.Unusable = true;
        }
    }
}

/// <summary>One file of a source: its buffers walked, its own metadata and clock, its problems located in it.</summary>
internal sealed class XelFileRead(Stream stream, string label, SourceStatus status)
{
    private const int MaxProblemsListed = 20;

    private readonly XelDecoder _decoder = new();
    private int _problems;

    public bool Rejected { get; private set; }

    /// <summary>Yields once per event buffer decoded, after adding its events to the list given.</summary>
    public IEnumerable<bool> Decode(List<XeEvent>? whole, List<TraceEvent>? analysed)
    {
        var walk = new XelBufferWalk(stream, Report);
        foreach (var buffer in walk.Buffers())
        {
            switch (buffer.Type)
            {
                case XelLayout.MetadataBuffer:
                    try
                    {
                        _decoder.ReadMetadata(buffer.Bytes, buffer.Start, buffer.End);
                    }
                    catch (XelDamageException e)
                    {
                        // A chunk that does not parse means a layout this reader has not seen: guessing past it could
                        // decode every later event wrongly, so the file stops here.
                        Report(buffer.Offset + e.Position, $"metadata not understood: {e.Message}; the rest of this file is not read");
                        Rejected = !_decoder.HasMetadata;
                        yield break;
                    }

                    break;
                case XelLayout.EventBuffer when !_decoder.HasMetadata:
                    Report(buffer.Offset, "event buffer before any metadata: its events cannot be decoded; skipped");
                    break;
                case XelLayout.EventBuffer:
                    status.Events += _decoder.ReadEvents(buffer.Bytes, buffer.Start, buffer.End, buffer.Session, buffer.Offset, Report, whole, analysed, buffer.Cut);
                    yield return true;
                    break;
                case XelLayout.HeaderBuffer:
                    // A stream header belongs to the event stream, not to a file: here it is a damaged type word, and
                    // the buffer's events are lost with it.
                    Report(buffer.Offset + 0x0E, $"log buffer type {buffer.Type} (a stream header) inside a file, where none belongs: damaged; skipped");
                    break;
                default:
                    Report(buffer.Offset, $"log buffer type {buffer.Type} is not known; skipped");
                    break;
            }
        }

        Rejected |= walk.Rejected;
    }

    private void Report(long offset, string message)
    {
        // A damaged metadata column can spoil every event of a file: the first problems say where and why, the
        // rest are counted, so a report stays readable.
        if (++_problems <= MaxProblemsListed)
        {
            status.Report(Location(offset), message);
        }
    }

    /// <summary>Says how many problems were counted but not listed, once the file is done.</summary>
    public void ReportUnlisted()
    {
        if (_problems > MaxProblemsListed)
        {
            status.Report(label.Length == 0 ? "file" : label, $"{_problems - MaxProblemsListed} more problems in this file, not listed");
        }
    }

    private string Location(long offset) => label.Length == 0 ? $"offset {offset}" : $"{label}, offset {offset}";
}
