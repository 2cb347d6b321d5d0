using System.Collections.Frozen;
using System.Collections.Immutable;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.OlaOutput;

/// <summary>
/// Tells the lines that carry on a BACKUP or RESTORE command printed over several lines from the engine's messages
/// after it (docs/input-formats.md, Ola Hallengren's job output). A line carries the command on when the text so far
/// stops inside a quoted name or path (whatever the line holds, even nothing), or after a comma, an equals sign or a
/// clause word (TO, WITH, FROM), or when the line itself starts with what only a statement holds there: a comma, a
/// device (DISK, URL, TAPE) or an option name. No message SQL Server prints starts that way, and none of its messages
/// follows "Command:" before the engine's first. The one rule for a command over several lines, whatever cut it.
/// </summary>
internal static class CommandContinuation
{
    // The words that start a device or an option of BACKUP and RESTORE (Microsoft's BACKUP and RESTORE arguments pages).
    private static readonly FrozenSet<string> StatementWords = new[]
    {
        "DISK", "URL", "TAPE", "TO", "FROM", "WITH", "MIRROR", "BUFFERCOUNT", "MAXTRANSFERSIZE", "BLOCKSIZE", "COMPRESSION",
        "NO_COMPRESSION", "CHECKSUM", "NO_CHECKSUM", "COPY_ONLY", "STATS", "FORMAT", "NOFORMAT", "INIT", "NOINIT", "SKIP",
        "NOSKIP", "ENCRYPTION", "DESCRIPTION", "NAME", "DIFFERENTIAL", "NORECOVERY", "RECOVERY", "STANDBY", "REPLACE", "MOVE",
        "FILE", "FILEGROUP", "CREDENTIAL", "MEDIANAME", "MEDIADESCRIPTION", "MEDIAPASSWORD", "PASSWORD", "RETAINDAYS",
        "EXPIREDATE", "REWIND", "NOREWIND", "UNLOAD", "NOUNLOAD", "CONTINUE_AFTER_ERROR", "STOP_ON_ERROR", "STOPAT",
        "STOPATMARK", "STOPBEFOREMARK", "RESTRICTED_USER", "KEEP_REPLICATION", "KEEP_CDC", "PARTIAL", "LOADHISTORY",
        "NO_TRUNCATE", "METADATA_ONLY", "SERVER_CERTIFICATE", "SERVER_ASYMMETRIC_KEY", "ALGORITHM", "FILESTREAM",
    }.ToFrozenSet(StringComparer.OrdinalIgnoreCase);

    private static readonly ImmutableArray<string> OpenEndings = ["TO", "WITH", "FROM", "AND"];

    /// <summary>True when <paramref name="line"/> carries on <paramref name="command"/>.</summary>
    public static bool Continues(string command, string line) => InsideQuote(command) || Wraps(command, line);

    /// <summary>True when the command stops inside a string literal or a bracketed name: the next line is the rest of it.</summary>
    public static bool InsideQuote(string command) => BackupCommandParser.EndsInsideQuote(command);

    // A statement printed over several lines at its clauses: the line starts or ends where a statement goes on.
    private static bool Wraps(string command, string line)
    {
        var text = line.Trim();
        if (text.Length == 0)
        {
            return false;
        }

        var before = command.TrimEnd();
        if (before.EndsWith(',') || before.EndsWith('=') || before.EndsWith('(')
            || OpenEndings.Any(word => EndsWithWord(before, word)))
        {
            return true;
        }

        if (text[0] is ',' or '=' or ')')
        {
            return true;
        }

        var end = 0;
        while (end < text.Length && (char.IsAsciiLetter(text[end]) || text[end] == '_'))
        {
            end++;
        }

        // A word alone, or followed by what an option is followed by: "BUFFERCOUNT = 50", "DISK = N'...'", "WITH CHECKSUM,".
        return end > 0 && StatementWords.Contains(text[..end]) && (end == text.Length || text[end] is ' ' or '=' or ',' or '\t' or '(');
    }

    /// <summary>
    /// The command with the line joined on. Inside a path's string literal the break is a wrapped copy's (no file name
    /// holds one): joined without a space. Inside a bracketed name it may be the name's own character (CommandExecute
    /// prints the name as it is): kept, and <paramref name="insideName"/> says so. Elsewhere a word break: one space.
    /// </summary>
    public static string Join(string command, string line, out bool insideName)
    {
        insideName = false;
        if (InsideLiteral(command))
        {
            return command + line;
        }

        if (InsideQuote(command))
        {
            insideName = true;
            return command + "\n" + line;
        }

        return command.TrimEnd() + " " + line.Trim();
    }

    // An odd number of single quotes: a literal (N'X:\b\a.bak') was cut by the line end. A doubled quote counts twice.
    private static bool InsideLiteral(string text) => text.Count(c => c == '\'') % 2 == 1;

    private static bool EndsWithWord(string text, string word)
        => text.EndsWith(word, StringComparison.OrdinalIgnoreCase)
           && (text.Length == word.Length || !char.IsAsciiLetterOrDigit(text[text.Length - word.Length - 1]) && text[text.Length - word.Length - 1] != '_');
}
