using System.Globalization;
using System.Runtime.CompilerServices;

namespace BackupXe.Sources.XeEvents;

/// <summary>
/// A numeric field as the source wrote it: absent, an integer, or text that is no integer. Parsed once where it is
/// read, so that XE XML can take the number straight from the reader's characters without a string; the text is
/// kept only when the number alone cannot give it back (a sign, spaces, leading zeros, no number at all), because a
/// value SQL Server cannot write is reported as written.
/// </summary>
internal readonly struct XeNumber
{
    private readonly string? _written;

    // One word rather than two bools: a number is copied right after it is made, a word at a time, and a word written
    // as two bytes cannot be forwarded to that read, which then waits for the bytes to reach the cache (per field and
    // event of a .xel; docs/performance.md, "Decoding .xel").
    private readonly Presence _presence;

    private XeNumber(bool parsed, long value, string? written)
    {
        _presence = parsed ? Presence.Integer : Presence.NotInteger;
        Value = value;
        _written = written;
    }

    private enum Presence : long
    {
        Absent,
        Integer,
        NotInteger,
    }

    public static XeNumber Absent => default;

    public bool IsPresent => _presence != Presence.Absent;

    /// <summary>The text is an integer that fits a <see cref="long"/> (<see cref="NumberStyles.Integer"/>, invariant).</summary>
    public bool IsInteger => _presence == Presence.Integer;

    public long Value { get; }

    /// <summary>The text as the source wrote it; null when absent.</summary>
    public string? Text => !IsPresent ? null : _written ?? Value.ToString(CultureInfo.InvariantCulture);

    /// <summary>The text is exactly <paramref name="digits"/>'s plain decimal form (what a string comparison with it gave).</summary>
    public bool IsExactly(long digits) =>
        IsInteger && Value == digits && (_written is null || IsPlain(_written));

    /// <summary>As an <see cref="int"/>, or null when absent or not an integer that fits one.</summary>
    public int? AsInt32 => IsInteger && Value is >= int.MinValue and <= int.MaxValue ? (int)Value : null;

    public static XeNumber From(string? text)
    {
        if (text is null)
        {
            return Absent;
        }

        var parsed = long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value);
        return new XeNumber(parsed, value, text);
    }

    /// <summary>A number read as a number (a binary field): what <see cref="From(string)"/> gives for its decimal digits.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static XeNumber Of(long value) =>
        value >= 0 ? OfNonNegative(value) : From(value.ToString(CultureInfo.InvariantCulture));

    /// <inheritdoc cref="Of(long)"/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static XeNumber Of(ulong value) =>
        value <= long.MaxValue ? OfNonNegative((long)value) : From(value.ToString(CultureInfo.InvariantCulture));

    /// <summary>
    /// <see cref="Of(long)"/> of a number known not to be negative. A caller on a per-event path builds the number here,
    /// in one expression: the two branches of <see cref="Of(long)"/> made the compiler build it in a temporary and copy
    /// it out, a read that could not be served from the writes just made.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static XeNumber OfNonNegative(long value) => new(true, value, null);

    /// <summary>From characters that are about to be overwritten: a string is made only for text that is no plain number.</summary>
    public static XeNumber From(ReadOnlySpan<char> text)
    {
        var parsed = long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value);
        return new XeNumber(parsed, value, parsed && IsPlain(text) ? null : new string(text));
    }

    /// <summary>Digits only, without a leading zero unless it is the only one: what <see cref="long.ToString()"/> writes.</summary>
    private static bool IsPlain(ReadOnlySpan<char> text)
    {
        if (text.IsEmpty || (text[0] == '0' && text.Length > 1))
        {
            return false;
        }

        foreach (var c in text)
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }
        }

        return true;
    }
}
