using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

// Lines about files and devices: the backup streams, zeroing, the client's per-file pages, and the history records (18264 and siblings) with their devices.
public sealed partial class TraceMessageParser
{
    // "BackupStream(0): Writing leading metadata to the device D:\x.bak" names a stripe; the other
    // BackupStream(n) lines (MSDA size, padding, totals) are per-stream detail with nothing to measure yet.
    private static TraceMessage? ParseBackupStream(Body body, ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char('(') || cursor.Long() is not { } stream || stream > int.MaxValue || !cursor.Char(')')
            || !cursor.Char(':'))
        {
            return null;
        }

        cursor.SkipWhiteSpace();
        var consumed = MatchPhrase(cursor.Rest, "Writing leading metadata to the device");
        if (consumed >= 0 && PathOf(cursor.Rest[consumed..]) is { } path)
        {
            return new BackupDeviceNamed((int)stream, path);
        }

        // "Starting MSDA of size 384 extents" (2008 R2), "Writing MSDA of size 1296 extents" (2014).
        var msda = MatchPhrase(cursor.Rest, "Starting MSDA of size");
        if (msda < 0)
        {
            msda = MatchPhrase(cursor.Rest, "Writing MSDA of size");
        }

        if (msda >= 0)
        {
            var size = new Cursor(cursor.Rest[msda..]);
            if (size.Long() is { } extents && size.Word("extents") && IsEnd(size.Rest))
            {
                return new MsdaStarted((int)stream, extents);
            }
        }

        return Known(body);
    }

    // "Zeroing D:\x_log.ldf from page 1 to 64000 (0x2000 to 0x1f400000)": the path may hold spaces, so the
    // last " from page " splits it.
    private static TraceMessage? ParseZeroing(ReadOnlySpan<char> rest)
    {
        var at = LastIndexOfIgnoreCase(rest, " from page ");
        if (at < 0)
        {
            return null;
        }

        var path = rest[..at].Trim();
        var cursor = new Cursor(rest[(at + " from page ".Length)..]);
        if (path.IsEmpty || cursor.Long() is not { } from || !cursor.Word("to") || cursor.Long() is not { } to)
        {
            return null;
        }

        if (to < from || to > ServerRanges.MaxPages)
        {
            return new ImplausibleValue($"zeroing line claims pages {from} to {to}, not a range SQL Server can write");
        }

        return new ZeroingStarted(path.ToString(), from, to);
    }

    // "Database backed up. Database: X, creation date(time): 2011/09/15(21:46:19), pages dumped: 3100,
    // first LSN: ..., last LSN: ..., number of dump devices: 1, device information: (FILE=2, TYPE=DISK: {'D:\x.bak'})."
    private static TraceMessage? ParseHistory(ReadOnlySpan<char> rest, OperationKind kind, OperationScope scope)
    {
        var at = IndexOfIgnoreCase(rest, "Database:");
        if (at < 0)
        {
            return null;
        }

        var afterName = rest[(at + "Database:".Length)..];
        var nameEnd = IndexOfIgnoreCase(afterName, ", creation date");
        if (nameEnd < 0)
        {
            nameEnd = afterName.IndexOf(',');
        }

        var name = (nameEnd < 0 ? afterName : afterName[..nameEnd]).Trim();
        if (name.IsEmpty)
        {
            return null;
        }

        var pages = NumberAfter(afterName, "pages dumped");
        if (pages > ServerRanges.MaxPages)
        {
            return new ImplausibleValue($"history line claims {pages} pages dumped, beyond what SQL Server can write");
        }

        var devices = NumberAfter(afterName, "number of dump devices");
        return new HistoryRecord(
            kind,
            scope,
            name.ToString(),
            pages,
            devices is { } n && n <= int.MaxValue ? (int)n : null,
            DevicesOf(afterName));
    }

    private static long? NumberAfter(ReadOnlySpan<char> text, string label)
    {
        var at = IndexOfIgnoreCase(text, label);
        if (at < 0)
        {
            return null;
        }

        var cursor = new Cursor(text[(at + label.Length)..]);
        return cursor.Char(':') ? cursor.Long() : null;
    }

    // "{'a'}", "{'a', 'b'}"; a virtual device is named like "{'{4B4C...}1'}", so a name ends at a quote
    // followed by a comma or a closing brace, not at the first brace.
    private static IReadOnlyList<string> DevicesOf(ReadOnlySpan<char> text)
    {
        var at = IndexOfIgnoreCase(text, "device information");
        if (at < 0)
        {
            return [];
        }

        var devices = new List<string>(1);
        var span = text[at..];
        var i = span.IndexOf('{');
        while (i >= 0)
        {
            i = SkipWhiteSpace(span, i + 1);
            while (i < span.Length && IsQuote(span[i]))
            {
                var nameStart = i + 1;
                var close = -1;
                for (var j = nameStart; j < span.Length; j++)
                {
                    if (!IsQuote(span[j]))
                    {
                        continue;
                    }

                    var next = SkipWhiteSpace(span, j + 1);
                    if (next < span.Length && span[next] is ',' or '}')
                    {
                        close = j;
                        break;
                    }
                }

                if (close < 0)
                {
                    return devices;
                }

                devices.Add(span[nameStart..close].ToString());
                i = SkipWhiteSpace(span, close + 1);
                if (i < span.Length && span[i] == ',')
                {
                    i = SkipWhiteSpace(span, i + 1);
                }
            }

            var nextGroup = i < span.Length ? span[i..].IndexOf('{') : -1;
            i = nextGroup < 0 ? -1 : i + nextGroup;
        }

        return devices;
    }

    // Logs pasted from web pages often carry typographic quotes (the 2008 R2 trace flag 3014 sample in
    // docs/diagnosis.md shows {‘D:\Backs\3014_full.bak’}); they delimit a device name as a straight quote does.
    private static bool IsQuote(char c) => c is '\'' or '\u2018' or '\u2019';

    // "Processed 292888 pages for database 'TestDB', file 'TestDB' on file 1."
    private static TraceMessage? ParseFilePages(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (cursor.Long() is not { } pages || !cursor.Word("pages") || !cursor.Word("for") || !cursor.Word("database")
            || cursor.Quoted() is not { } database || !cursor.Char(',') || !cursor.Word("file")
            || cursor.Quoted() is not { } file)
        {
            return null;
        }

        if (pages > ServerRanges.MaxBytes / 8192)
        {
            return new ImplausibleValue($"file line claims {pages} pages, beyond what SQL Server can write");
        }

        int? position = null;
        if (cursor.Word("on") && cursor.Word("file"))
        {
            position = cursor.Long() is { } n && n <= int.MaxValue ? (int)n : null;
        }

        return IsEnd(cursor.Rest) ? new FilePagesProcessed(database, file, pages, position) : null;
    }

    private static string? PathOf(ReadOnlySpan<char> rest)
    {
        var path = rest.Trim();
        return path.IsEmpty ? null : path.ToString();
    }
}
