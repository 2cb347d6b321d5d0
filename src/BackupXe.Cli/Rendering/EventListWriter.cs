using System.Buffers.Text;
using System.Globalization;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// Writes <c>backupxe events</c> output: one line (JSON) or row (CSV) per event, encoded straight into one large
/// output block (<see cref="OutputBuffer"/>), never through a string per event. Two ways in, one output: a whole
/// <see cref="XeEvent"/> (XE XML, an ERRORLOG), or a .xel buffer's values told one by one as they are decoded
/// (<see cref="IXeEventListing"/>), where what is written of each event and field name is prepared once per file.
/// </summary>
internal abstract class EventListWriter : IXeEventListing
{
    private readonly HashSet<string>? _wanted;
    private readonly EventNames _seen = new();
    private XeShapes? _shapes;
    private bool[] _listed = [];
    private long[] _counts = [];
    private XeEventShape? _event;
    private bool _eventListed;

    // What was written of each map text of the file, by map and entry: a wait type is written hundreds of thousands of
    // times, escaped once.
    private PreparedBytes?[]?[] _mapTexts = [];

    // The last UTC timestamp written, to its second ("2024-05-01T01:30:00."): events of a capture share it in runs.
    private readonly byte[] _toTheSecond = new byte[20];
    private long _second = -1;

    /// <param name="wanted">The event names to list (null: all); others are only counted (<see cref="Counted"/>).</param>
    protected EventListWriter(OutputBuffer output, HashSet<string>? wanted)
    {
        Output = output;
        _wanted = wanted;
    }

    protected static ReadOnlySpan<byte> NewLine => Environment.NewLine == "\n" ? "\n"u8 : "\r\n"u8;

    /// <summary>Where the listing is written.</summary>
    public OutputBuffer Output { get; }

    /// <param name="names">The columns of a CSV listing; not used by JSON Lines, which names each value where it is.</param>
    /// <param name="wanted">Names of the events listed through <see cref="IXeEventListing"/> (null: all).</param>
    public static EventListWriter For(string format, OutputBuffer output, XeNames names, HashSet<string>? wanted = null) =>
        format == "csv" ? new CsvEventListWriter(output, names, wanted) : new JsonLinesEventListWriter(output, wanted);

    /// <summary>Called once before the first event.</summary>
    public virtual void Start()
    {
    }

    public abstract void Write(XeEvent xeEvent);

    /// <summary>Takes over what <paramref name="part"/>, a writer of the same format that listed a later part apart, noted.</summary>
    public virtual void Absorb(EventListWriter part)
    {
    }

    /// <summary>Forgets what was written and noted, for the next part.</summary>
    public virtual void Clear()
    {
        Output.Clear();
        Array.Clear(_counts);
        _seen.Clear();
    }

    /// <summary>How many events of each name were told through <see cref="IXeEventListing"/>, and how many were listed.</summary>
    public EventNames Counted()
    {
        Fold();
        return _seen;
    }

    public bool Begin(XeEventShape shape, DateTime timestamp)
    {
        if (!ReferenceEquals(shape.Set, _shapes))
        {
            Fold();
            _shapes = shape.Set;
            _listed = [.. shape.Set.Events.Select(e => _wanted is null || _wanted.Contains(e.Name))];
            _counts = new long[shape.Set.Events.Count];
            _mapTexts = new PreparedBytes?[]?[shape.Set.Maps.Count];
            Prepare(shape.Set);
        }

        _event = shape;
        _eventListed = _listed[shape.Index];
        if (_eventListed)
        {
            BeginEvent(shape, timestamp);
        }

        return _eventListed;
    }

    public void End()
    {
        _counts[_event!.Index]++;
        if (_eventListed)
        {
            EndEvent();
        }
    }

    public void Abandon()
    {
        if (_eventListed)
        {
            AbandonEvent();
        }
    }

    public abstract void Unsigned(XeColumnShape column, ulong value);

    public abstract void Signed(XeColumnShape column, long value);

    public abstract void Boolean(XeColumnShape column, bool value);

    public abstract void Float(XeColumnShape column, double value);

    public abstract void Pointer(XeColumnShape column, ulong value);

    public abstract void Text(XeColumnShape column, ReadOnlySpan<char> text);

    public abstract void MapText(XeColumnShape column, int entry);

    public abstract void Guid(XeColumnShape column, Guid value, uint? sequence);

    public abstract void Binary(XeColumnShape column, ReadOnlySpan<byte> bytes);

    /// <summary>
    /// Writes map entry <paramref name="entry"/>'s text into <paramref name="output"/> as <paramref name="write"/>
    /// writes a text, escaping it the first time only: later, the bytes written then are copied.
    /// </summary>
    protected void MapText(OutputBuffer output, XeColumnShape column, int entry, Action<OutputBuffer, string> write)
    {
        var map = column.Map!;
        var texts = _mapTexts[map.Index] ??= new PreparedBytes?[map.Texts.Count];
        if (texts[entry] is { } written)
        {
            output.Write(written);
            return;
        }

        var start = output.Length;
        var sends = output.Sends;
        write(output, map.Texts[entry]);
        if (output.Sends == sends)
        {
            texts[entry] = new PreparedBytes(output.Gathered[start..]);
        }
    }

    /// <summary>What is written of the names of a file's events and actions, made once for all its buffers.</summary>
    protected abstract void Prepare(XeShapes shapes);

    protected abstract void BeginEvent(XeEventShape shape, DateTime timestamp);

    protected abstract void EndEvent();

    /// <summary>Forgets what was written of the event begun last (damage found inside it skips it).</summary>
    protected abstract void AbandonEvent();

    /// <summary>
    /// The event's timestamp: round-trip ISO 8601 with all seven fractional digits, <c>Z</c> for UTC and no zone
    /// for an ERRORLOG's local time.
    /// </summary>
    protected void Timestamp(DateTime timestamp)
    {
        var span = Output.GetSpan(40);
        if (timestamp.Kind != DateTimeKind.Utc)
        {
            timestamp.TryFormat(span, out var written, "o", CultureInfo.InvariantCulture);
            Output.Advance(written);
            return;
        }

        // What "o" writes of a UTC time, yyyy-MM-ddTHH:mm:ss.fffffffZ: the part to the second made once per second (a
        // capture writes hundreds of events a second), then the seven digits of the fraction.
        var ticks = timestamp.Ticks;
        var second = ticks / TimeSpan.TicksPerSecond;
        if (second != _second)
        {
            ToTheSecond(second);
        }

        _toTheSecond.CopyTo(span);
        var fraction = (int)(ticks - (second * TimeSpan.TicksPerSecond));
        for (var i = 26; i >= 20; i--)
        {
            span[i] = (byte)('0' + (fraction % 10));
            fraction /= 10;
        }

        span[27] = (byte)'Z';
        Output.Advance(28);
    }

    /// <summary><c>0x</c> and 16 hexadecimal digits, as <see cref="XeValue.Display"/> gives a pointer.</summary>
    protected static void PointerDigits(OutputBuffer output, ulong pointer)
    {
        var span = output.GetSpan(18);
        span[0] = (byte)'0';
        span[1] = (byte)'x';
        var digits = "0123456789ABCDEF"u8;
        for (var i = 17; i >= 2; i -= 2)
        {
            var octet = (int)(pointer & 0xFF);
            span[i] = digits[octet & 0xF];
            span[i - 1] = digits[octet >> 4];
            pointer >>= 8;
        }

        output.Advance(18);
    }

    /// <summary><c>0x</c> and two upper-case hexadecimal digits a byte, as <see cref="XeValue.Display"/> gives bytes.</summary>
    protected static void HexDigits(OutputBuffer output, ReadOnlySpan<byte> bytes)
    {
        var span = output.GetSpan(2 + (2 * bytes.Length));
        "0x"u8.CopyTo(span);
        var digits = "0123456789ABCDEF"u8;
        for (var i = 0; i < bytes.Length; i++)
        {
            span[2 + (2 * i)] = digits[bytes[i] >> 4];
            span[3 + (2 * i)] = digits[bytes[i] & 0xF];
        }

        output.Advance(2 + (2 * bytes.Length));
    }

    /// <summary>A GUID (with an activity id's sequence) as <see cref="XeValue.Display"/> gives it, in <paramref name="chars"/>.</summary>
    protected static int GuidText(Guid value, uint? sequence, Span<char> chars)
    {
        value.TryFormat(chars, out var written, "D");
        for (var i = 0; i < written; i++)
        {
            chars[i] = char.ToUpperInvariant(chars[i]);
        }

        if (sequence is { } next)
        {
            chars[written++] = '-';
            next.TryFormat(chars[written..], out var digits, default, CultureInfo.InvariantCulture);
            written += digits;
        }

        return written;
    }

    // Integers through the UTF-8 formatter: the generic path below costs three calls per number. Most numbers of a
    // capture (sessions, durations in ms, opcodes) are under 100: their digits are written here, without a call.
    protected static void Number(OutputBuffer output, ulong number)
    {
        if (number < 100)
        {
            SmallNumber(output, (int)number);
            return;
        }

        Utf8Formatter.TryFormat(number, output.GetSpan(20), out var written);
        output.Advance(written);
    }

    protected static void Number(OutputBuffer output, long number)
    {
        if (number is >= 0 and < 100)
        {
            SmallNumber(output, (int)number);
            return;
        }

        Utf8Formatter.TryFormat(number, output.GetSpan(20), out var written);
        output.Advance(written);
    }

    protected static void Number<T>(OutputBuffer output, T number)
        where T : IUtf8SpanFormattable
    {
        var span = output.GetSpan(32);
        number.TryFormat(span, out var written, default, CultureInfo.InvariantCulture);
        output.Advance(written);
    }

    private static void SmallNumber(OutputBuffer output, int number)
    {
        var span = output.GetSpan(2);
        if (number < 10)
        {
            span[0] = (byte)('0' + number);
            output.Advance(1);
            return;
        }

        span[0] = (byte)('0' + (number / 10));
        span[1] = (byte)('0' + (number % 10));
        output.Advance(2);
    }

    private void ToTheSecond(long second)
    {
        new DateTime(second * TimeSpan.TicksPerSecond).TryFormat(_toTheSecond, out _, "yyyy-MM-dd'T'HH:mm:ss'.'", CultureInfo.InvariantCulture);
        _second = second;
    }

    /// <summary>Adds what this writer told of since the last fold to the names counted.</summary>
    private void Fold()
    {
        if (_shapes is null)
        {
            return;
        }

        for (var i = 0; i < _counts.Length; i++)
        {
            if (_counts[i] > 0)
            {
                _seen.Add(_shapes.Events[i].Name, _counts[i], _listed[i] ? _counts[i] : 0);
                _counts[i] = 0;
            }
        }
    }
}
