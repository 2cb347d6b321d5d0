using System.Buffers;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// One ERRORLOG line that opens a message: <c>2014-09-10 18:10:48.95 spid51      Backup(db): ...</c>, or the same
/// three columns tab-separated as <c>sp_readerrorlog</c> exports them.
/// </summary>
/// <param name="Timestamp">Server local time; kind Unspecified because the log carries no zone.</param>
/// <param name="SessionId">From <c>spidNN</c> / <c>spidNNs</c>; null for <c>Backup</c>, <c>Server</c>, <c>Logon</c>.</param>
/// <param name="TextStart">Where the message text begins in the line.</param>
internal readonly record struct ErrorlogLine(DateTime Timestamp, int? SessionId, int TextStart)
{
    // The shortest timestamp the server writes: "yyyy-MM-dd HH:mm:ss" (a fraction normally follows).
    private const int MinTimestampLength = 19;

    // Control characters other than tab, and the decoder's replacement character, never occur in text the
    // server wrote: their presence means binary data or a file read with the wrong encoding.
    private static readonly SearchValues<char> Controls = SearchValues.Create(
        "\0\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000B\u000C\u000E\u000F" +
        "\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F");

    private static readonly SearchValues<char> PlainText = CharRange.Of(' ', '\uFFFC');

    // A line with nothing below ' ' and nothing above U+FFFC holds neither, which one range scan tells; only a line
    // with a tab (an sp_readerrorlog export has them on every line) or such a character gets the exact scans. Those
    // are two, not one set: with U+FFFD in it the set is searched by a slower non-ASCII method, which cost more than
    // both scans together on every line (docs/performance.md).
    // (CharRange says why it is a SearchValues and not IndexOfAnyExceptInRange.)
    // C1 controls (U+0080-U+009F) lie inside the quick range, and no server writes them either: their own range scan,
    // only on lines that are not all printable ASCII (the reader proves that for nearly every line of a log).
    public static bool LooksBinary(ReadOnlySpan<char> line)
        => (line.ContainsAnyExcept(PlainText) && (line.ContainsAny(Controls) || line.Contains('\uFFFD')))
            || line.ContainsAnyInRange('\u0080', '\u009F');

    /// <summary>
    /// True when <paramref name="s"/> starts with digits laid out as an ERRORLOG timestamp, valid or not: a line
    /// dated 2024-02-30 or at hour 25 is a damaged message start, not continuation text.
    /// </summary>
    /// <remarks>
    /// One character of the layout may be wrong (<c>2024-O5-02</c>, a flipped bit, a digit lost to an editor): a
    /// timestamp damaged so is still no continuation text, which never matches 18 of these 19 places.
    /// </remarks>
    public static bool HasTimestampShape(ReadOnlySpan<char> s)
    {
        const string Layout = "0000-00-00 00:00:00";
        if (s.Length < MinTimestampLength)
        {
            return false;
        }

        var wrong = 0;
        for (var i = 0; i < Layout.Length && wrong <= 1; i++)
        {
            var fits = Layout[i] == '0' ? char.IsAsciiDigit(s[i]) : s[i] == Layout[i] || (i == 10 && s[i] == 'T');
            wrong += fits ? 0 : 1;
        }

        return wrong <= 1;
    }

    /// <summary>
    /// True when <paramref name="s"/> is the head of a timestamp and nothing more (<c>2024-05-</c>): what a file cut
    /// in the first characters of its last line leaves, which is no continuation of the message above.
    /// </summary>
    public static bool IsCutTimestamp(ReadOnlySpan<char> s)
    {
        const string Layout = "0000-00-00 00:00:00.00";
        if (s.IsEmpty || s.Length >= Layout.Length)
        {
            return false;
        }

        for (var i = 0; i < s.Length; i++)
        {
            if (Layout[i] == '0' ? !char.IsAsciiDigit(s[i]) : s[i] != Layout[i] && !(i == 10 && s[i] == 'T'))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>True when <paramref name="line"/> starts with an ERRORLOG timestamp followed by a column break.</summary>
    public static bool StartsWithTimestamp(ReadOnlySpan<char> line) => TryParseTimestamp(line, null, out _, out _);

    /// <param name="lastLine">What the line before began with, when the lines are read in order; null when not.</param>
    public static bool TryParse(ReadOnlySpan<char> line, LastLine? lastLine, out ErrorlogLine parsed)
    {
        parsed = default;
        if (!TryParseTimestamp(line, lastLine, out var timestamp, out var position))
        {
            return false;
        }

        if (position < line.Length && line[position] == '\t')
        {
            // sp_readerrorlog export: the columns are split by single tabs, so the text keeps its own spacing.
            var processStart = position + 1;
            var tab = line[processStart..].IndexOf('\t');
            var processEnd = tab < 0 ? line.Length : processStart + tab;
            parsed = new ErrorlogLine(timestamp, ParseSpid(line[processStart..processEnd].Trim(' ')), tab < 0 ? line.Length : processEnd + 1);
            return true;
        }

        if (lastLine is not null && lastLine.TryMatchColumns(line, position, out var lastSessionId, out var lastTextStart))
        {
            parsed = new ErrorlogLine(timestamp, lastSessionId, lastTextStart);
            return true;
        }

        // Raw ERRORLOG: the process column is padded with a varying run of spaces, and ends at a blank.
        var nameStart = SkipBlanks(line, position);
        var nameEnd = nameStart;
        while (nameEnd < line.Length && !IsBlank(line[nameEnd]))
        {
            nameEnd++;
        }

        var textStart = SkipBlanks(line, nameEnd);
        var sessionId = ParseSpid(line[nameStart..nameEnd]);
        lastLine?.RememberColumns(line, position, textStart, sessionId);
        parsed = new ErrorlogLine(timestamp, sessionId, textStart);
        return true;
    }

    /// <summary>The session of a process column ("spid51", "spid7s"); null for "Backup", "Server", "Logon".</summary>
    public static int? SessionOf(ReadOnlySpan<char> process) => ParseSpid(process);

    private static int? ParseSpid(ReadOnlySpan<char> process)
    {
        // "spid51" is a user session, "spid7s" a system one; both are the session id the XE action would give.
        if (!StartsWithSpid(process))
        {
            return null;
        }

        // Digit by digit: int.TryParse looks up the culture's number format on every line. Past the largest session
        // id the value stops growing, so no count of digits can overflow it.
        var digits = process[4..];
        var end = 0;
        var spid = 0;
        while (end < digits.Length && char.IsAsciiDigit(digits[end]))
        {
            spid = Math.Min((spid * 10) + (digits[end] - '0'), ServerRanges.MaxSessionId + 1);
            end++;
        }

        return end > 0 && ServerRanges.IsSessionId(spid) ? spid : null;
    }

    // "spid" in any case, as StartsWith with OrdinalIgnoreCase would find it, a character at a time: that folds no
    // character outside ASCII onto these four letters (not the long s, not the dotless i; ProcessColumn tests hold
    // both), so ASCII case folding is the whole rule, without the culture-free comparison's set-up on every line.
    private static bool StartsWithSpid(ReadOnlySpan<char> process) =>
        process.Length >= 4
        && ((process[0] | 0x20) == 's') & ((process[1] | 0x20) == 'p') & ((process[2] | 0x20) == 'i') & ((process[3] | 0x20) == 'd');

    private static bool TryParseTimestamp(ReadOnlySpan<char> s, LastLine? lastLine, out DateTime timestamp, out int end)
    {
        timestamp = default;
        end = 0;
        if (lastLine is null || !lastLine.TryMatchSecond(s, out var secondTicks))
        {
            if (!TryParseSecond(s, out secondTicks))
            {
                return false;
            }

            lastLine?.RememberSecond(s, secondTicks);
        }

        var position = MinTimestampLength;
        long fractionTicks = 0;
        if (position < s.Length && s[position] == '.')
        {
            // The raw log writes hundredths (".95"), sp_readerrorlog milliseconds (".950"): scale either to ticks.
            position++;
            var digits = 0;
            while (position < s.Length && char.IsAsciiDigit(s[position]) && digits < 7)
            {
                fractionTicks = (fractionTicks * 10) + (s[position] - '0');
                position++;
                digits++;
            }

            if (digits == 0)
            {
                return false;
            }

            fractionTicks *= TicksPerFractionDigit[digits];
        }

        if (position < s.Length && !IsBlank(s[position]))
        {
            return false;
        }

        // Every field is in range here, so the ticks are summed directly instead of validated again by AddTicks.
        timestamp = new DateTime(secondTicks + fractionTicks, DateTimeKind.Unspecified);
        end = position;
        return true;
    }

    // Ticks (100 ns) that one unit of the last digit is worth, by number of fraction digits (1 to 7).
    private static ReadOnlySpan<long> TicksPerFractionDigit => [0, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];

    // "yyyy-MM-dd HH:mm:ss" (or with a 'T'), every field in range: the ticks of that second.
    private static bool TryParseSecond(ReadOnlySpan<char> s, out long ticks)
    {
        ticks = 0;
        if (s.Length < MinTimestampLength
            || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':'
            || !TryDigits(s, 0, 4, out var year) || !TryDigits(s, 5, 2, out var month)
            || !TryDigits(s, 8, 2, out var day) || !TryDigits(s, 11, 2, out var hour)
            || !TryDigits(s, 14, 2, out var minute) || !TryDigits(s, 17, 2, out var second)
            || year < ServerRanges.EarliestYear || year > ServerRanges.LatestYear || month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(year, month)
            || hour > 23 || minute > 59 || second > 59)
        {
            return false;
        }

        ticks = new DateTime(year, month, day).Ticks + (((((hour * 60L) + minute) * 60) + second) * TimeSpan.TicksPerSecond);
        return true;
    }

    /// <summary>
    /// What the last line that opened a message began with, for the next one to compare instead of reading again:
    /// <list type="bullet">
    /// <item>its date and time to the second: a log writes several lines a second (a backup's percent lines, its
    /// setup steps), and those share their first 19 characters, which are cheaper to compare than six numbers are to
    /// read and range-check;</item>
    /// <item>its raw process column, padding included ("spid51      "): one session writes line after line, so one
    /// comparison stands for reading the column again (two runs of blanks, the name, the session id).</item>
    /// </list>
    /// </summary>
    internal sealed class LastLine
    {
        private readonly char[] _second = new char[MinTimestampLength];
        private long _ticks = -1;

        // From the end of the timestamp to the start of the text; empty when the last line gave nothing to reuse.
        private char[] _columns = new char[32];
        private int _columnsLength;
        private int? _sessionId;

        public bool TryMatchSecond(ReadOnlySpan<char> line, out long ticks)
        {
            ticks = _ticks;
            return ticks >= 0 && line.Length >= MinTimestampLength && line[..MinTimestampLength].SequenceEqual(_second);
        }

        public void RememberSecond(ReadOnlySpan<char> line, long ticks)
        {
            line[..MinTimestampLength].CopyTo(_second);
            _ticks = ticks;
        }

        /// <summary>
        /// True when <paramref name="line"/>, from <paramref name="position"/> (the end of its timestamp), has the
        /// last line's process column and padding followed by text: those characters alone decide what
        /// <see cref="TryParse"/> reads there, so the session id and the text's start are the last line's.
        /// </summary>
        public bool TryMatchColumns(ReadOnlySpan<char> line, int position, out int? sessionId, out int textStart)
        {
            sessionId = _sessionId;
            textStart = position + _columnsLength;
            return _columnsLength > 0 && textStart < line.Length && !IsBlank(line[textStart])
                && line.Slice(position, _columnsLength).SequenceEqual(_columns.AsSpan(0, _columnsLength));
        }

        /// <summary>Keeps a raw line's columns from <paramref name="position"/> to <paramref name="textStart"/>, when text follows them.</summary>
        public void RememberColumns(ReadOnlySpan<char> line, int position, int textStart, int? sessionId)
        {
            var columns = line[position..textStart];
            if (textStart >= line.Length || columns.Length > _columns.Length)
            {
                _columnsLength = 0;
                return;
            }

            columns.CopyTo(_columns);
            _columnsLength = columns.Length;
            _sessionId = sessionId;
        }
    }

    private static bool TryDigits(ReadOnlySpan<char> s, int start, int count, out int value)
    {
        value = 0;
        for (var i = start; i < start + count; i++)
        {
            if (!char.IsAsciiDigit(s[i]))
            {
                return false;
            }

            value = (value * 10) + (s[i] - '0');
        }

        return true;
    }

    private static int SkipBlanks(ReadOnlySpan<char> s, int position)
    {
        while (position < s.Length && IsBlank(s[position]))
        {
            position++;
        }

        return position;
    }

    private static bool IsBlank(char c) => c is ' ' or '\t';
}
