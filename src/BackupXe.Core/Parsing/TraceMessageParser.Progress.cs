using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

// The percent lines: the server's "N percent (bytes/total bytes) processed" and the client's "N percent processed.".
public sealed partial class TraceMessageParser
{
    // "1 percent (1048576/95303680 bytes) processed".
    private static TraceMessage? ParsePercent(ReadOnlySpan<char> text)
    {
        if (TryServerPercent(text, out var written, out _))
        {
            return written;
        }

        var cursor = new Cursor(text);
        if (cursor.Long() is not { } percent || percent > 100 || !cursor.Word("percent"))
        {
            return null;
        }

        // The client's STATS line has no byte counts: "10 percent processed."; SQL Server 2000 wrote "10 percent restored."
        // and "10 percent backed up.", which name the operation's kind.
        cursor.SkipWhiteSpace();
        if (cursor.Word("processed"))
        {
            return IsEnd(cursor.Rest) ? new PercentReached((int)percent) : null;
        }

        OperationKind? kind = cursor.Word("restored") ? OperationKind.Restore : cursor.Word("backed up") ? OperationKind.Backup : null;
        if (kind is not null)
        {
            return IsEnd(cursor.Rest) ? new PercentReached((int)percent) { Kind = kind } : null;
        }

        if (!cursor.Char('(')
            || cursor.Long() is not { } bytes || !cursor.Char('/') || cursor.Long() is not { } total
            || !cursor.Word("bytes") || !cursor.Char(')') || !cursor.Word("processed") || !IsEnd(cursor.Rest))
        {
            return null;
        }

        if (Math.Max(bytes, total) > ServerRanges.MaxBytes)
        {
            return TooLarge("progress line", Math.Max(bytes, total));
        }

        return new PercentProcessed((int)percent, bytes, total);
    }

    // "1 percent (1048576/95303680 bytes) processed" exactly as the server writes it, which is most lines of a
    // trace flag 3014 log (two in three of a log of back-to-back backups): read with its punctuation fixed, in one
    // pass, instead of word by word. Any other spacing or case returns false and is read by ParsePercent's
    // general rule, which accepts this form too and gives the same result (the range checks are the same).
    // canonical: no number has a leading zero, so that the numbers alone write the text back.
    private static bool TryServerPercent(ReadOnlySpan<char> text, out TraceMessage? message, out bool canonical)
    {
        message = null;
        canonical = false;
        const string afterPercent = " percent (";
        var percent = Digits(text, out var read);
        if (read == 0 || !text[read..].StartsWith(afterPercent))
        {
            return false;
        }

        var leadingZero = read > 1 && text[0] == '0';
        var rest = text[(read + afterPercent.Length)..];
        var bytes = Digits(rest, out read);
        if (read == 0 || read == rest.Length || rest[read] != '/')
        {
            return false;
        }

        leadingZero |= read > 1 && rest[0] == '0';
        rest = rest[(read + 1)..];
        var total = Digits(rest, out read);
        if (read == 0 || !rest[read..].SequenceEqual(ServerPercentTail))
        {
            return false;
        }

        leadingZero |= read > 1 && rest[0] == '0';
        canonical = !leadingZero;

        message = percent > 100 ? null
            : Math.Max(bytes, total) > ServerRanges.MaxBytes ? TooLarge("progress line", Math.Max(bytes, total))
            : new PercentProcessed((int)percent, bytes, total);
        return true;
    }

    /// <summary>
    /// The number the leading ASCII digits of <paramref name="text"/> write, <see cref="long.MaxValue"/> when it is
    /// larger; <paramref name="count"/> is how many digits there were (0: none, and the value is 0).
    /// </summary>
    private static long Digits(ReadOnlySpan<char> text, out int count)
    {
        // Digit by digit rather than through long.TryParse, which looks up the culture's number format on every
        // call: three numbers on each of a million percent lines (docs/performance.md). The count is kept in a local and
        // stored once: counted in the out parameter, every digit was a store to memory, and this loop was a fifth
        // of the time of reading a percent line.
        long value = 0;
        var i = 0;

        // Eighteen digits cannot overflow a long, so they need no check.
        var unchecked18 = Math.Min(text.Length, 18);
        for (; i < unchecked18; i++)
        {
            var digit = (uint)(text[i] - '0');
            if (digit > 9)
            {
                count = i;
                return value;
            }

            value = (value * 10) + digit;
        }

        for (; i < text.Length; i++)
        {
            var digit = (uint)(text[i] - '0');
            if (digit > 9)
            {
                break;
            }

            // More digits than a long holds is still a number, only an impossible one: saturate so that the
            // rule's range check reports it instead of the line passing for an unknown message.
            value = value < long.MaxValue / 10 || (value == long.MaxValue / 10 && digit <= long.MaxValue % 10)
                ? (value * 10) + digit
                : long.MaxValue;
        }

        count = i;
        return value;
    }
}
