using System.Globalization;

namespace BackupXe.Core.Parsing;

/// <summary>
/// The engine's messages inside one line of a stored transcript. PowerShell prints each message of a -Verbose run after
/// "VERBOSE: " (and warnings after "WARNING: "); SQL Agent stores step output and job history with " [SQLSTATE 01000]"
/// after every message, often followed by "(Message 3014)" or "(Error 3201)", and job history runs a whole step onto one
/// line after "Executed as user: NAME. ". A line
/// with neither is its own single message, returned without copying.
/// </summary>
public static class ClientLine
{
    private const string SqlState = "[SQLSTATE ";

    private const string ExecutedAs = "Executed as user: ";

    private const string Verbose = "VERBOSE:";

    private const string Warning = "WARNING:";

    /// <summary>True when the line carries a PowerShell stream prefix or an Agent SQLSTATE suffix.</summary>
    public static bool IsWrapped(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        return line.Contains(SqlState, StringComparison.Ordinal) || PrefixLength(line) > 0;
    }

    /// <summary>
    /// The messages of a wrapped line, in order, with the prefix and suffixes removed. A message Agent numbered as an error
    /// ("(Error 3201)") becomes "Msg 3201, text", the error line's own form; the generic 3013 keeps its text, which
    /// is what ends the operation.
    /// </summary>
    public static IReadOnlyList<string> Unwrap(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        var messages = new List<string>(2);
        var rest = line.AsSpan(PrefixLength(line));

        // Job history opens a step's line with who ran it: "Executed as user: NT SERVICE\SQLSERVERAGENT. 10 percent ...".
        if (rest.StartsWith(ExecutedAs, StringComparison.Ordinal) && rest.IndexOf(". ", StringComparison.Ordinal) is var user and > 0)
        {
            rest = rest[(user + 2)..];
        }

        var powerShell = PrefixLength(line) > 0;
        while (!rest.IsEmpty)
        {
            var state = rest.IndexOf(SqlState, StringComparison.Ordinal);
            if (state < 0)
            {
                if (powerShell && Quoted(rest) is { } quoted)
                {
                    messages.Add(quoted);
                    break;
                }

                AddMessage(messages, rest, null);
                break;
            }

            var text = rest[..state];
            var close = rest[state..].IndexOf(']');
            rest = close < 0 ? [] : rest[(state + close + 1)..];
            var number = Numbered(ref rest, out var isError);
            AddMessage(messages, text, isError ? number : null);
        }

        return messages;
    }

    // A PowerShell record puts its own words before the engine's message ("[11:23:56][Get-DbaBackupInformation] Failure on
    // S | Cannot open backup device ..."): a failure of the catalog found in it is that message, numbered from its row as
    // Agent's "(Error N)" numbers one.
    private static string? Quoted(ReadOnlySpan<char> record)
    {
        var text = record.Trim().ToString();
        return text.StartsWith("Msg ", StringComparison.Ordinal) || EngineMessageCatalog.Quoted(text) is not { } found
            ? null
            : string.Create(CultureInfo.InvariantCulture, $"Msg {found.Row.Number}, {text[found.Start..]}");
    }

    private static int PrefixLength(string line)
        => line.StartsWith(Verbose, StringComparison.Ordinal) ? Verbose.Length
            : line.StartsWith(Warning, StringComparison.Ordinal) ? Warning.Length
            : 0;

    // "(Message 3014)" or "(Error 3201)" after the SQLSTATE, then the "." or white space Agent puts between messages.
    private static int? Numbered(ref ReadOnlySpan<char> rest, out bool isError)
    {
        isError = false;
        var trimmed = rest.TrimStart();
        int? number = null;
        foreach (var (word, error) in new[] { ("(Message ", false), ("(Error ", true) })
        {
            if (!trimmed.StartsWith(word, StringComparison.Ordinal))
            {
                continue;
            }

            var end = trimmed.IndexOf(')');
            if (end > word.Length && int.TryParse(trimmed[word.Length..end], NumberStyles.None, CultureInfo.InvariantCulture, out var value))
            {
                number = value;
                isError = error;
                trimmed = trimmed[(end + 1)..];
            }

            break;
        }

        rest = trimmed.TrimStart('.').TrimStart();
        return number;
    }

    private static void AddMessage(List<string> messages, ReadOnlySpan<char> text, int? error)
    {
        var message = text.Trim();
        if (message.IsEmpty)
        {
            return;
        }

        messages.Add(error is { } number and not EngineError.TerminatingAbnormally
            ? string.Create(CultureInfo.InvariantCulture, $"Msg {number}, {message}")
            : message.ToString());
    }
}
