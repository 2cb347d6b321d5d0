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
    private readonly Func<List<XeEvent>, object>? _prepare;
    private readonly List<XelFinding> _findings = [];
    private Task? _decoding;
    private long _decoded;

    /// <summary>Only what the walk met: the end of the input.</summary>
    public XelStep(Action[] before)
    {
        _before = before;
        Whole = [];
        Analysed = [];
    }

    /// <param name="owned">The buffer is copied: the walk reuses its bytes while this one waits to be decoded.</param>
    /// <param name="prepare">Made of the whole events where they were decoded (null: none); see <see cref="Prepared"/>.</param>
    public XelStep(Action[] before, XelFileProblems file, XelPlans plans, XelLogBuffer buffer, bool whole, bool owned, Func<List<XeEvent>, object>? prepare = null)
    {
        _prepare = prepare;
        _before = before;
        _file = file;
        _plans = plans;
        _buffer = buffer;
        _owned = owned;
        if (owned)
        {
            _bytes = ArrayPool<byte>.Shared.Rent(buffer.End);
            buffer.Bytes.AsSpan(0, buffer.End).CopyTo(_bytes);
        }
        else
        {
            _bytes = buffer.Bytes;
        }

        if (whole)
        {
            Whole = [];
        }
        else
        {
            Analysed = [];
        }
    }

    /// <summary>The buffer's events, every field kept (listing); null when analysed events were asked for.</summary>
    public List<XeEvent>? Whole { get; }

    /// <summary>The buffer's events as BackupXe analyses them; null when whole events were asked for.</summary>
    public List<TraceEvent>? Analysed { get; }

    /// <summary>What the preparation made of <see cref="Whole"/> on the decoding thread; null for a step without a buffer.</summary>
    public object? Prepared { get; private set; }

    /// <summary>Decodes the buffer on the thread pool, with working state of its own (a few small objects per buffer).</summary>
    public void Start()
    {
        if (_plans is not null)
        {
            _decoding = Task.Run(() => Decode(new XelBufferDecoder()));
        }
    }

    /// <summary>Decodes the buffer here, with <paramref name="decoder"/>'s working state.</summary>
    public void Decode(XelBufferDecoder decoder)
    {
        if (_plans is null)
        {
            return;
        }

        try
        {
            _decoded = decoder.Decode(_plans, _bytes, _buffer.Start, _buffer.End, _buffer.Session, _buffer.Offset, _findings, Whole, Analysed, _buffer.Cut);
        }
        finally
        {
            if (_owned)
            {
                ArrayPool<byte>.Shared.Return(_bytes!);
            }
        }

        if (_prepare is not null)
        {
            Prepared = _prepare(Whole!);

            // The prepared form replaces the events: only it stays in memory while the step waits its turn.
            Whole!.Clear();
        }
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
