using System.Globalization;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

// The operation lines of the message parser: start, finish, failure and completion ("BACKUP DATABASE successfully processed ..."), and the 3004 "RestoreDatabase:" starts.
public sealed partial class TraceMessageParser
{
    private static TraceMessage? ParseOperationLine(Body body, ReadOnlySpan<char> rest, OperationKind kind)
    {
        var cursor = new Cursor(rest);
        cursor.SkipWhiteSpace();
        if (cursor.Word("failed"))
        {
            return cursor.Word("to complete the command") ? FailedCommand(kind, body, cursor.Rest) : new OperationFailed(kind, body.ToText());
        }

        var processed = IndexOfIgnoreCase(rest, "successfully processed");
        if (processed >= 0)
        {
            return ParseCompletion(kind, rest[..processed], rest[(processed + "successfully processed".Length)..]);
        }

        var abnormally = IndexOfIgnoreCase(rest, "is terminating abnormally");
        if (abnormally >= 0 || rest.Contains("abnormally", StringComparison.OrdinalIgnoreCase))
        {
            // A RESTORE that only reads the media names its statement ("RESTORE HEADERONLY is terminating abnormally.", realworld4 V25).
            var statement = abnormally > 0 ? rest[..abnormally].Trim() : [];
            return new OperationFailed(kind, body.ToText(), statement.IsEmpty ? null : (kind == OperationKind.Restore ? MediaReadOf(statement) : null) ?? ScopeOf(statement));
        }

        var words = TrimEnd(rest);
        if (EndsWithWord(words, "started", out var head))
        {
            return ScopeOf(head) is { } scope ? new OperationStarted(kind, scope) : null;
        }

        if (EndsWithWord(words, "finished", out head))
        {
            return new OperationFinished(kind, ScopeOf(head));
        }

        return null;
    }

    // 3041, "BACKUP failed to complete the command BACKUP LOG Sales. Check the backup application log ...": the command
    // names the scope and the database (the name runs to the sentence's end; it is written unquoted).
    private static OperationFailed FailedCommand(OperationKind kind, Body body, ReadOnlySpan<char> command)
    {
        var cursor = new Cursor(command);
        cursor.SkipWhiteSpace();
        var words = cursor.Rest;
        var sentence = words.IndexOf(". ", StringComparison.Ordinal);
        words = (sentence < 0 ? words : words[..sentence]).TrimEnd().TrimEnd('.');
        var verb = kind == OperationKind.Backup ? "BACKUP" : "RESTORE";
        if (!words.StartsWith(verb, StringComparison.OrdinalIgnoreCase))
        {
            return new OperationFailed(kind, body.ToText());
        }

        var head = words[verb.Length..].TrimStart();
        var scope = ScopeOf(head);
        var space = head.IndexOf(' ');
        var name = space < 0 ? [] : head[(space + 1)..].Trim();
        return new OperationFailed(kind, body.ToText(), scope)
        {
            Database = scope is not null && !name.IsEmpty && !name.Contains(' ') ? name.ToString() : null,
        };
    }

    // "BACKUP DATABASE", "BACKUP LOG", "BACKUP DATABASE WITH DIFFERENTIAL", "BACKUP DATABASE...FILE=<name>".
    private static OperationScope? ScopeOf(ReadOnlySpan<char> head)
    {
        head = head.Trim();
        if (head.StartsWith("LOG", StringComparison.OrdinalIgnoreCase)
            && (head.Length == 3 || !char.IsLetterOrDigit(head[3])))
        {
            return OperationScope.Log;
        }

        if (!head.StartsWith("DATABASE", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        var tail = head["DATABASE".Length..];
        if (tail.Contains("DIFFERENTIAL", StringComparison.OrdinalIgnoreCase))
        {
            return OperationScope.Differential;
        }

        return tail.Contains("FILE", StringComparison.OrdinalIgnoreCase) ? OperationScope.File : OperationScope.Database;
    }

    // The statement's word: 3013 names the statement ("%hs is terminating abnormally."), and these are RESTORE's
    // own statements (Microsoft Learn, "RESTORE Statements").
    private static OperationScope? MediaReadOf(ReadOnlySpan<char> head)
    {
        var space = head.IndexOfAny(' ', '\t');
        var word = space < 0 ? head : head[..space];
        return word switch
        {
            _ when word.Equals("HEADERONLY", StringComparison.OrdinalIgnoreCase) => OperationScope.HeaderOnly,
            _ when word.Equals("FILELISTONLY", StringComparison.OrdinalIgnoreCase) => OperationScope.FileListOnly,
            _ when word.Equals("LABELONLY", StringComparison.OrdinalIgnoreCase) => OperationScope.LabelOnly,
            _ when word.Equals("VERIFYONLY", StringComparison.OrdinalIgnoreCase) => OperationScope.VerifyOnly,
            _ => null,
        };
    }

    // "... successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec)."
    private static TraceMessage? ParseCompletion(OperationKind kind, ReadOnlySpan<char> head, ReadOnlySpan<char> tail)
    {
        if (ScopeOf(head) is not { } scope)
        {
            return null;
        }

        var cursor = new Cursor(tail);
        if (cursor.Long() is not { } pages || !cursor.Word("pages") || !TimedRate(ref cursor, out var seconds, out var rate))
        {
            // Figures no server prints (negative pages, NaN seconds): damage, not another program's line, and the
            // operation still ends here. Words where the figures go ("many pages") stay an unknown line, and so does a
            // line that stops before its rate: the head of a message folded at a width, or a cut the reader locates.
            return tail.TrimStart() is [>= '0' and <= '9' or '-' or '+' or '.', ..] && tail.Contains("MB/sec)", StringComparison.Ordinal)
                ? new ImplausibleValue($"completion line with figures SQL Server does not write ('{Shown(tail.Trim())}')") { Completes = kind, CompletedScope = scope }
                : null;
        }

        return Impossible(pages, seconds, rate, "completion line") is { } impossible
            ? impossible with { Completes = kind, CompletedScope = scope }
            : new CompletionSummary(kind, scope, pages, seconds, rate);
    }

    // A damaged line is quoted in its problem, but not at any length.
    private static string Shown(ReadOnlySpan<char> text) => text.Length <= 80 ? text.ToString() : $"{text[..80]}...";

    // "in 43.967 seconds (1429.096 MB/sec)." to the end of the line: the figures every completion line ends with.
    private static bool TimedRate(ref Cursor cursor, out double seconds, out double rate)
    {
        seconds = rate = 0;
        if (!cursor.Word("in") || cursor.Double() is not { } s || !cursor.Word("seconds") || !cursor.Char('(')
            || cursor.Double() is not { } r || !cursor.Word("MB/sec") || !cursor.Char(')') || !IsEnd(cursor.Rest))
        {
            return false;
        }

        (seconds, rate) = (s, r);
        return true;
    }

    private static ImplausibleValue? Impossible(long? pages, double seconds, double rate, string what) =>
        pages > ServerRanges.MaxPages || seconds > ServerRanges.MaxSeconds || !double.IsFinite(rate)
            ? new ImplausibleValue(
                $"{what} claims {pages?.ToString(CultureInfo.InvariantCulture) ?? "?"} pages in {seconds:R} seconds, beyond what SQL Server can write")
            : null;

    // "... in 0.542 seconds (350.156 MB/sec)" and "... 24266 pages in 1.414 seconds (134.067 MB/sec).": the tail of a
    // completion line as excerpts publish it (real-world S04, S05); the same numbers and range checks as the whole line.
    private static TraceMessage? ParseElidedCompletion(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        var pages = cursor.Long();
        if ((pages is not null && !cursor.Word("pages")) || !TimedRate(ref cursor, out var seconds, out var rate))
        {
            return null;
        }

        return (TraceMessage?)Impossible(pages, seconds, rate, "excerpt's completion figures") ?? new ElidedCompletion(pages, seconds, rate);
    }

    // "RestoreDatabase: Database AdventureWorks"; "RestoreDatabase: Finished" closes it in older 3004 posts.
    private static TraceMessage? ParseLegacyStart(ReadOnlySpan<char> rest, OperationKind kind, OperationScope scope)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':'))
        {
            return null;
        }

        if (cursor.Word("Database"))
        {
            var name = cursor.Rest.Trim();
            return name.IsEmpty ? null : new OperationStarted(kind, scope, name.ToString());
        }

        return cursor.Word("Finished") && IsEnd(cursor.Rest) ? new OperationFinished(kind, scope) : null;
    }
}
