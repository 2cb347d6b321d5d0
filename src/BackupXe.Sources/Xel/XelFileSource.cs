using System.Runtime.ExceptionServices;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>
/// Extended Events event_file (.xel) input, read by BackupXe's own decoder: one file, a rollover set read in
/// file order (each file with its own metadata and clock), or any stream of the same bytes. The log buffers of a
/// file are independent once its metadata is read, so they are decoded on every core, a few per core at a time
/// (memory does not grow with the files), and handed on in file order: events, problems and counts are exactly
/// those of one buffer decoded after the other.
/// </summary>
internal sealed class XelFileSource : ITraceEventBatchSource, IReadAheadAdvice, IXeEventSource, IXeEventBatchSource
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

    /// <summary>Buffers this many at a time may be read ahead and decoding; 0 decodes each where it is read.</summary>
    /// <remarks>On one core there is no other core to decode on, and every hand-over would only cost.</remarks>
    internal int BuffersInFlight { get; init; } = Environment.ProcessorCount > 1 ? 4 * Environment.ProcessorCount : 0;

    /// <summary>
    /// Plain waits are mapped from their columns' bytes (<see cref="XelWaitColumns"/>); off only where a test compares
    /// that with the general way.
    /// </summary>
    internal bool WaitShortcut { get; init; } = true;

    /// <summary>Decoding already runs beside the analysis, on the other cores; a read-ahead thread would only add hand-overs.</summary>
    public bool ReadAheadPays => BuffersInFlight == 0;

    public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken) =>
        ReadEvents(status, cancellationToken).ToAsyncEnumerable();

    public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
        => TraceEventList.Flatten(ReadEventBatches(status, cancellationToken));

    /// <summary>Each buffer's analysed events, as decoded: the reader takes them a buffer at a time.</summary>
    public IEnumerable<TraceEventList> ReadEventBatches(SourceStatus status, CancellationToken cancellationToken)
    {
        foreach (var buffer in Decoded(status, whole: false, null, cancellationToken))
        {
            if (buffer.Analysed is { Count: > 0 } analysed)
            {
                yield return analysed;
            }
        }
    }

    public IAsyncEnumerable<XeEvent> ReadXeEventsAsync(SourceStatus status, CancellationToken cancellationToken) =>
        ReadXeEvents(status, cancellationToken).ToAsyncEnumerable();

    /// <summary>Every event whole, every field and action kept (for <c>backupxe events</c>).</summary>
    public IEnumerable<XeEvent> ReadXeEvents(SourceStatus status, CancellationToken cancellationToken)
    {
        foreach (var buffer in Decoded(status, whole: true, null, cancellationToken))
        {
            foreach (var xeEvent in buffer.Whole!)
            {
                yield return xeEvent;
            }
        }
    }

    public IEnumerable<T> ReadXeEventBatches<T>(SourceStatus status, Func<T> listing, CancellationToken cancellationToken)
        where T : class, IXeEventListing
    {
        foreach (var step in Decoded(status, whole: true, listing, cancellationToken))
        {
            if (step.Prepared is T prepared)
            {
                yield return prepared;
            }
        }
    }

    /// <summary>
    /// The names each file's metadata declares: every data column of the events the session records and every action
    /// it attaches. SQL Server writes a file's metadata in its first buffers, before any event, so the walk stops at
    /// the first event buffer: a few kilobytes read per file, whatever its size.
    /// </summary>
    public void AddNames(XeNames names, CancellationToken cancellationToken)
    {
        foreach (var (_, open) in _inputs)
        {
            cancellationToken.ThrowIfCancellationRequested();
            Stream stream;
            try
            {
                stream = open();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidOperationException)
            {
                continue;
            }

            using (stream)
            {
                var decoder = new XelDecoder();
                foreach (var buffer in new XelBufferWalk(stream, static (_, _) => { }).Buffers())
                {
                    if (buffer.Type != XelLayout.MetadataBuffer)
                    {
                        break;
                    }

                    try
                    {
                        decoder.ReadMetadata(buffer.Bytes, buffer.Start, buffer.End);
                    }
                    catch (XelDamageException)
                    {
                        break;
                    }
                }

                foreach (var package in decoder.Catalogue.Packages)
                {
                    foreach (var column in package.Events.SelectMany(e => e.DataColumns))
                    {
                        names.AddField(column.Name);
                    }

                    foreach (var action in package.Actions)
                    {
                        names.AddAction(action.Package, action.Name);
                    }
                }
            }
        }
    }

    /// <summary>
    /// The steps of the read in file order, each decoded and its problems and counts applied to the status just before
    /// it is handed on. Up to <see cref="BuffersInFlight"/> steps are read ahead, their buffers decoding meanwhile. The
    /// window opens as the reader takes: one step ahead at first, twice as many after each step taken, so a file merged
    /// with others that waits for its turn holds two buffers, not a full window.
    /// </summary>
    /// <param name="listing">Gives the listing each buffer's events are told to where they are decoded (null: none).</param>
    private IEnumerable<XelStep> Decoded(SourceStatus status, bool whole, Func<IXeEventListing>? listing, CancellationToken cancellationToken)
    {
        var window = new Queue<XelStep>();
        var ahead = Math.Min(1, BuffersInFlight);
        var here = new XelBufferDecoder(WaitShortcut);
        ExceptionDispatchInfo? failure = null;
        using (var steps = Steps(status, whole, owned: BuffersInFlight > 0, listing).GetEnumerator())
        {
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                try
                {
                    if (!steps.MoveNext())
                    {
                        break;
                    }
                }
                catch (Exception e) when (window.Count > 0)
                {
                    // A read that fails ends the events where it failed, after every buffer read before it, as one
                    // buffer after the other would.
                    failure = ExceptionDispatchInfo.Capture(e);
                    break;
                }

                var step = steps.Current;
                if (BuffersInFlight == 0)
                {
                    step.Decode(here);
                    step.Apply(status);
                    yield return step;
                    continue;
                }

                step.Start(WaitShortcut);
                window.Enqueue(step);
                while (window.Count > ahead)
                {
                    yield return window.Dequeue().Finish(status);
                    ahead = Math.Min(ahead * 2, BuffersInFlight);
                }
            }
        }

        while (window.Count > 0)
        {
            yield return window.Dequeue().Finish(status);
        }

        failure?.Throw();
    }

    /// <summary>
    /// Walks the inputs in order: metadata is read here, where it is met, and every event buffer becomes a step to
    /// decode against the plans of its file as they stood. Problems found while walking are not reported here but
    /// carried by the next step, so that they reach the status in file order with the decoders' own.
    /// </summary>
    /// <param name="owned">Each step takes its buffer's bytes from the walk (decoded later, on another thread).</param>
    private IEnumerable<XelStep> Steps(SourceStatus status, bool whole, bool owned, Func<IXeEventListing>? listing)
    {
        var pending = new List<Action>();
        foreach (var (file, problem) in _skipped)
        {
            pending.Add(() => status.Report(file, problem));
        }

        var readable = 0;
        foreach (var (label, open) in _inputs)
        {
            Stream stream;
            try
            {
                stream = open();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                pending.Add(() => status.Report(label.Length == 0 ? "file" : label, $"cannot be opened: {e.Message}"));
                continue;
            }

            using (stream)
            {
                var file = new XelFileProblems(label, status);
                var decoder = new XelDecoder();
                var walk = new XelBufferWalk(stream, (offset, message) => pending.Add(() => file.Report(offset, message)));
                var rejected = false;
                var stopped = false;
                foreach (var buffer in walk.Buffers())
                {
                    switch (buffer.Type)
                    {
                        case XelLayout.MetadataBuffer:
                            try
                            {
                                decoder.ReadMetadata(buffer.Bytes, buffer.Start, buffer.End);
                            }
                            catch (XelDamageException e)
                            {
                                // A chunk that does not parse means a layout this reader has not seen: guessing past it
                                // could decode every later event wrongly, so the file stops here.
                                var offset = buffer.Offset + e.Position;
                                pending.Add(() => file.Report(offset, $"metadata not understood: {e.Message}; the rest of this file is not read"));
                                rejected = !decoder.HasMetadata;
                                stopped = true;
                            }

                            break;
                        case XelLayout.EventBuffer when !decoder.HasMetadata:
                            var before = buffer.Offset;
                            pending.Add(() => file.Report(before, "event buffer before any metadata: its events cannot be decoded; skipped"));
                            break;
                        case XelLayout.EventBuffer:
                            var stepBuffer = owned ? buffer with { Bytes = walk.Detach(buffer) } : buffer;
                            yield return new XelStep(Take(pending), file, decoder.Plans, stepBuffer, whole, owned, listing);
                            break;
                        case XelLayout.HeaderBuffer:
                            // A stream header belongs to the event stream, not to a file: here it is a damaged type word,
                            // and the buffer's events are lost with it.
                            var header = buffer.Offset + 0x0E;
                            var type = buffer.Type;
                            pending.Add(() => file.Report(header, $"log buffer type {type} (a stream header) inside a file, where none belongs: damaged; skipped"));
                            break;
                        default:
                            var unknown = buffer.Offset;
                            var unknownType = buffer.Type;
                            pending.Add(() => file.Report(unknown, $"log buffer type {unknownType} is not known; skipped"));
                            break;
                    }

                    if (stopped)
                    {
                        break;
                    }
                }

                if (!stopped)
                {
                    rejected |= walk.Rejected;
                }

                pending.Add(file.ReportUnlisted);
                if (!rejected)
                {
                    readable++;
                }
            }
        }

        pending.Add(() =>
        {
            if (readable == 0 && status.Events == 0)
            {
                status.Unusable = true;
            }
        });
        yield return new XelStep(Take(pending));
    }

    private static Action[] Take(List<Action> pending)
    {
        if (pending.Count == 0)
        {
            return [];
        }

        var taken = pending.ToArray();
        pending.Clear();
        return taken;
    }
}
