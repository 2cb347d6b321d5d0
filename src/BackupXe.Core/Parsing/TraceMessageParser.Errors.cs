
namespace BackupXe.Core.Parsing;

// The error lines of the message parser: the ERRORLOG's "Error: N, Severity: S, State: T." header and a client's "Msg N, Level L, ...".
public sealed partial class TraceMessageParser
{
    // "Error: 3041, Severity: 16, State: 1.": the ERRORLOG's header of an error, whose text is the next message of the
    // same process. Kept for the backup/restore range (3000-3999 above severity 10) and the catalog's other failures
    // and warnings; any other error is not this vocabulary's.
    private static ErrorHeader? ParseErrorHeader(Body body, ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':') || cursor.Long() is not { } number || number > int.MaxValue || !cursor.Char(',')
            || !cursor.Word("Severity") || !cursor.Char(':') || cursor.Long() is not { } severity || severity > 25)
        {
            return null;
        }

        int? state = cursor.Char(',') && cursor.Word("State") && cursor.Char(':') && cursor.Long() is { } s && s <= int.MaxValue ? (int)s : null;
        var known = (number is >= 3000 and <= 3999 && severity > 10)
            || EngineMessageCatalog.Find((int)number)?.Family is MessageFamily.Failure or MessageFamily.Warning;
        return known ? new ErrorHeader((int)number, (int)severity, state, body.ToText()) : null;
    }

    // "Msg 845, Level 17, State 1, Line 2" (its text on the next line), "Msg 845, Level 17: text" (the two joined),
    // "Msg 3201, Sev 16, State 1, Line 1 : text" (SQL Agent), "Msg 3201, Level 16, State 1, Server S, Line 1" (sqlcmd),
    // "Msg 3201, text" (CommandExecute). Severities above 25 and error numbers below 1 do not exist.
    private static EngineError? ParseEngineError(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (cursor.Long() is not { } number || number is < 1 or > int.MaxValue || !cursor.Char(','))
        {
            return null;
        }

        int? severity = null;
        var header = false;
        while (true)
        {
            if (cursor.Word("Level") || cursor.Word("Severity") || cursor.Word("Sev"))
            {
                if (cursor.Long() is not { } level || level > 25)
                {
                    return null;
                }

                severity = (int)level;
            }
            else if (cursor.Word("State") || cursor.Word("Line"))
            {
                if (cursor.Long() is null)
                {
                    return null;
                }
            }
            else if (header && (cursor.Word("Server") || cursor.Word("Procedure")))
            {
                var next = cursor.Rest.IndexOfAny(',', ':');
                cursor = new Cursor(next < 0 ? [] : cursor.Rest[next..]);
            }
            else
            {
                break;
            }

            header = true;
            if (!cursor.Char(','))
            {
                break;
            }
        }

        var text = cursor.Rest.Trim();

        // SSMS ends the header with where its batch started: "Line 2894 [Batch Start Line 0]" (realworld4 V28).
        if (header && text.StartsWith("[Batch Start Line ", StringComparison.Ordinal) && text.IndexOf(']') is var close and > 0)
        {
            text = text[(close + 1)..].Trim();
        }

        if (!header)
        {
            return text.IsEmpty ? null : new EngineError((int)number, null, text.ToString());
        }

        if (!text.IsEmpty && text[0] == ':')
        {
            text = text[1..].Trim();
        }
        else if (!text.IsEmpty)
        {
            return null;
        }

        return new EngineError((int)number, severity, text.IsEmpty ? null : text.ToString());
    }

    // "ALTER DATABASE is not permitted while a database is in the Restoring state." (5052): the state, one word before "state.".
    private static DatabaseStateRefusal? ParseStateRefusal(ReadOnlySpan<char> rest)
    {
        const string Tail = " state.";
        var text = rest.Trim();
        if (!text.EndsWith(Tail, StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        var state = text[..^Tail.Length].Trim();
        return state.IsEmpty || state.ContainsAny(' ', '\t') ? null : new DatabaseStateRefusal(state.ToString());
    }

    // "Execution Timeout Expired.  The timeout period elapsed prior to completion of the operation or the server is not
    // responding.": the driver's, read by the catalog's template so that a pool or login time-out is not taken for it.
    private static EngineError? ParseClientTimeout(Body body)
    {
        var text = body.ToText();
        return EngineMessageCatalog.Find(EngineMessageCatalog.ClientTimedOut) is { } row && row.Matches(EngineMessageCatalog.Normalised(text))
            ? new EngineError(EngineMessageCatalog.ClientTimedOut, null, text)
            : null;
    }
}
