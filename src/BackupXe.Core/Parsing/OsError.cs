using System.Collections.Frozen;
using System.Collections.Immutable;
using System.Globalization;

namespace BackupXe.Core.Parsing;

/// <summary>
/// The operating system's error inside an engine message: "Operating system error 5(Access is denied.)" (3201, 18204,
/// 18210), "The operating system returned error 1117(...)" (823), "failed: 112(There is not enough space on the disk.)"
/// (3202), "on file \"X:\" 64(...)" (3271), or a backup to URL's "received an exception from the remote endpoint. Exception Message: ..." (no number).
/// </summary>
/// <param name="Code">The Windows system error code; null for the URL endpoint's exception, which has none.</param>
/// <param name="Text">The text the message printed for it, without its parentheses; null when it printed none.</param>
internal sealed record OsError(int? Code, string? Text)
{
    private const string RemoteEndpoint = "received an exception from the remote endpoint";
    private const string ExceptionMessage = "Exception Message:";

    // The phrases that put an OS error code right after them, most specific first.
    // 3271 puts it after the file's name and its closing quote: 'on file "D:\x.bak:" 64(...)'.
    private static readonly ImmutableArray<string> Leads = ["Operating system error ", "operating system returned error ", "failed: ", ":\" "];

    /// <summary>
    /// What Windows says of each code BackupXe decodes (Microsoft's "System Error Codes"; docs/message-catalog.md lists
    /// them with that source, and a test holds the two lists equal).
    /// </summary>
    internal static IReadOnlyDictionary<int, string> Known { get; } = new Dictionary<int, string>
    {
        [2] = "The system cannot find the file specified.",
        [3] = "The system cannot find the path specified.",
        [5] = "Access is denied.",
        [31] = "A device attached to the system is not functioning.",
        [32] = "The process cannot access the file because it is being used by another process.",
        [53] = "The network path was not found.",
        [64] = "The specified network name is no longer available.",
        [112] = "There is not enough space on the disk.",
        [665] = "The requested operation could not be completed due to a file system limitation.",
        [995] = "The I/O operation has been aborted because of either a thread exit or an application request.",
        [1117] = "The request could not be performed because of an I/O device error.",
        [1450] = "Insufficient system resources exist to complete the requested service.",
    }.ToFrozenDictionary();

    /// <summary>
    /// What Windows says of <paramref name="code"/> (Microsoft's "System Error Codes"), for a message that printed the
    /// number without its text.
    /// </summary>
    public static string MeaningOf(int? code) => code switch
    {
        null => "an exception from the remote endpoint, with no system error code",
        { } known when Known.TryGetValue(known, out var meaning) => meaning,
        _ => "a system error code not in BackupXe's table (docs/message-catalog.md)",
    };

    /// <summary>The OS error <paramref name="message"/> carries; null when it carries none.</summary>
    public static OsError? In(string? message)
    {
        if (string.IsNullOrEmpty(message))
        {
            return null;
        }

        var text = message.AsSpan();
        var endpoint = text.IndexOf(RemoteEndpoint, StringComparison.OrdinalIgnoreCase);
        if (endpoint >= 0)
        {
            var rest = text[(endpoint + RemoteEndpoint.Length)..];
            var exception = rest.IndexOf(ExceptionMessage, StringComparison.OrdinalIgnoreCase);
            var said = exception < 0 ? [] : rest[(exception + ExceptionMessage.Length)..].Trim().TrimEnd('.');
            return new OsError(null, said.IsEmpty ? null : said.ToString());
        }

        foreach (var lead in Leads)
        {
            var at = text.IndexOf(lead, StringComparison.OrdinalIgnoreCase);
            if (at >= 0 && Coded(text[(at + lead.Length)..]) is { } error)
            {
                return error;
            }
        }

        return null;
    }

    /// <summary>
    /// The OS error inside error <paramref name="number"/>'s <paramref name="text"/>: as <see cref="In"/> reads it, or, for a
    /// text in another language than the catalog's English (a server in German), by the part no language changes: the
    /// code and its printed text in parentheses, "2(Das System ...)", the last in the text. Such a code is given
    /// Microsoft's English meaning when the table has it (its text left null), else the text as printed.
    /// </summary>
    public static OsError? Of(int number, string? text)
    {
        if (In(text) is { } found)
        {
            return found;
        }

        if (text is null || !EngineMessageCatalog.CarriesOsError(number) || EngineMessageCatalog.OtherWordingOf(number, text) is null)
        {
            return null;
        }

        for (var open = text.LastIndexOf('('); open > 0; open = text.LastIndexOf('(', open - 1))
        {
            var start = open;
            while (start > 0 && open - start < 10 && char.IsAsciiDigit(text[start - 1]))
            {
                start--;
            }

            // A code stands alone before its parenthesis ("Betriebssystemfehler 2("), not at the end of a name ("x2(").
            if (start < open && (start == 0 || !char.IsLetterOrDigit(text[start - 1])) && Coded(text.AsSpan(start)) is { Code: { } code } error)
            {
                return Known.ContainsKey(code) ? error with { Text = null } : error;
            }
        }

        return null;
    }

    // "5(Access is denied.)", "0x80070002(...)", "112(There is not enough space on the disk.)": a number, then its text.
    private static OsError? Coded(ReadOnlySpan<char> text)
    {
        int? code;
        int read;
        if (text.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
        {
            read = 2;
            while (read < text.Length && char.IsAsciiHexDigit(text[read]))
            {
                read++;
            }

            // An HRESULT of the Win32 facility (0x8007xxxx) carries the system error code in its low word.
            code = uint.TryParse(text[2..read], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var hresult)
                ? (hresult & 0xFFFF0000) == 0x80070000 ? (int)(hresult & 0xFFFF) : (int?)null
                : null;
            if (code is null)
            {
                return null;
            }
        }
        else
        {
            read = 0;
            while (read < text.Length && read < 10 && char.IsAsciiDigit(text[read]))
            {
                read++;
            }

            code = read > 0 && int.TryParse(text[..read], NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? value : null;
            if (code is null)
            {
                return null;
            }
        }

        var rest = text[read..];
        if (rest.IsEmpty || rest[0] != '(')
        {
            return new OsError(code, null);
        }

        // The text may hold parentheses of its own: it ends at the parenthesis that closes the first.
        var depth = 0;
        for (var i = 0; i < rest.Length; i++)
        {
            depth += rest[i] == '(' ? 1 : rest[i] == ')' ? -1 : 0;
            if (depth == 0)
            {
                var said = rest[1..i].Trim();
                return new OsError(code, said.IsEmpty ? null : said.ToString());
            }
        }

        return new OsError(code, rest[1..].Trim().ToString());
    }
}
