using System.Buffers;
using BackupXe.Core.Events;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>
/// One step of reading a .xel source in file order: what the walk met before it (problems, the end of a file), then
/// usually one event buffer to decode, possibly on another thread, and its events, problems and count.
/// </summary>
internal sealed class XelStep
{
    private readonly Action[] _before;
    private readonly XelFileProblems? _file;
    private readonly XelPlans? _plans;
    private readonly byte[]? _bytes;
    private readonly XelLogBuffer _buffer;
    private readonly bool _owned;
    private readonly Func<IXeEventListing>? _listing;
    private readonly List<XelFinding> _findings = [];
    private static readonly TraceEventList Nothing = new(0);
    private Task? _decoding;
    private long _decoded;

    /// <summary>Only what the walk met: the end of the input.</summary>
    public XelStep(Action[] before)
    {
        _before = before;
        Whole = [];
        Analysed = Nothing;
    }

    /// <param name="owned">The buffer's bytes are the step's own (detached from the walk), returned to the shared pool once decoded.</param>
    /// <param name="listing">Gives the listing each event is told to where it is decoded (null: events are kept); see <see cref="Prepared"/>.</param>
    public XelStep(Action[] before, XelFileProblems file, XelPlans plans, XelLogBuffer buffer, bool whole, bool owned, Func<IXeEventListing>? listing = null)
    {
        _listing = listing;
        _before = before;
        _file = file;
        _plans = plans;
        _buffer = buffer;
        _owned = owned;
        _bytes = buffer.Bytes;

        if (listing is not null)
        {
            return;
        }

        if (whole)
        {
            Whole = [];
        }
        else
        {
            // Sized for what a buffer gives (a 64 KB buffer of wait_info records: about 440 analysed events), so the
            // list is not grown and copied eight times per buffer; capped, since a damaged buffer may claim any size.
            Analysed = new TraceEventList(Math.Min(buffer.End / 128, 1024));
        }
    }

    /// <summary>The buffer's events, every field kept (listing); null when analysed events or a listing were asked for.</summary>
    public List<XeEvent>? Whole { get; }

    /// <summary>The buffer's events as BackupXe analyses them; null when whole events or a listing were asked for.</summary>
    public TraceEventList? Analysed { get; }

    /// <summary>The listing the buffer's events were told to, on the decoding thread; null for a step without a buffer or listing.</summary>
    public IXeEventListing? Prepared { get; private set; }

    /// <summary>Decodes the buffer on the thread pool, with working state of its own (a few small objects per buffer).</summary>
    /// <param name="waitShortcut">See <see cref="XelFileSource.WaitShortcut"/>.</param>
    public void Start(bool waitShortcut)
    {
        if (_plans is not null)
        {
            _decoding = Task.Run(() => Decode(new XelBufferDecoder(waitShortcut)));
        }
    }

    /// <summary>Decodes the buffer here, with <paramref name="decoder"/>'s working state.</summary>
    public void Decode(XelBufferDecoder decoder)
    {
        if (_plans is null)
        {
            return;
        }

        var listing = _listing?.Invoke();
        try
        {
            _decoded = decoder.Decode(_plans, _bytes, _buffer.Start, _buffer.End, _buffer.Session, _buffer.Offset, _findings, Whole, Analysed, _buffer.Cut, listing);
        }
        finally
        {
            if (_owned)
            {
                ArrayPool<byte>.Shared.Return(_bytes!);
            }
        }

        Prepared = listing;
    }

    /// <summary>Waits for the decoding started by <see cref="Start"/>, then applies the step to the status.</summary>
    public XelStep Finish(SourceStatus status)
    {
        _decoding?.GetAwaiter().GetResult();
        Apply(status);
        return this;
    }

    /// <summary>What the walk met before the buffer, then the buffer's own problems and count, in that order.</summary>
    public void Apply(SourceStatus status)
    {
        foreach (var effect in _before)
        {
            effect();
        }

        if (_file is not null)
        {
            foreach (var finding in _findings)
            {
                _file.Say(finding);
            }

            status.Events += _decoded;
        }
    }
}

/// <summary>The problems of one file of a source, said in file order and located in it; the count of them kept.</summary>
internal sealed class XelFileProblems(string label, SourceStatus status)
{
    private const int MaxProblemsListed = 20;

    private readonly HashSet<long> _onceSaid = [];
    private int _problems;

    /// <summary>A problem of a decoded buffer; one said once per file is dropped the second time.</summary>
    public void Say(XelFinding finding)
    {
        if (finding.Once == XelFinding.Always || _onceSaid.Add(finding.Once))
        {
            Report(finding.Offset, finding.Message);
        }
    }

    public void Report(long offset, string message)
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
