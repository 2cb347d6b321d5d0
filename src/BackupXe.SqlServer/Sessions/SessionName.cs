using System.Text.RegularExpressions;

namespace BackupXe.SqlServer.Sessions;

/// <summary>
/// Event session names, and the one way BackupXe writes one into T-SQL or a printed command. A session BackupXe only
/// reads (or starts, stops, drops) may have any name SQL Server allows, a sysname: Microsoft's own Managed Instance
/// backup-monitoring page names its session "Verbose backup trace". A session BackupXe creates keeps a stricter rule,
/// a regular identifier in ASCII, so that its name stays typeable on any command line and in the .xel file names.
/// </summary>
public static partial class SessionName
{
    /// <summary>The name the scripts ship with.</summary>
    public const string Default = "BackupXe";

    /// <summary>sysname holds 128 characters.</summary>
    public const int MaxLength = 128;

    /// <summary>What a name BackupXe reads must be, for messages.</summary>
    public const string Rule = "a session name of 1 to 128 characters (a sysname) without control characters";

    /// <summary>What a name BackupXe creates must be, for messages.</summary>
    public const string CreateRule = "up to 128 letters, digits, _, $, # or @, starting with a letter or _";

    /// <summary>
    /// Any sysname: 1 to 128 characters, not only spaces. Control characters (a line break) are refused: no session
    /// name needs one, and one would forge a line in every message that names the session.
    /// </summary>
    public static bool IsValid(string? name) =>
        name is { Length: > 0 and <= MaxLength } && !string.IsNullOrWhiteSpace(name) && !name.Any(char.IsControl);

    /// <summary>A name BackupXe may create a session with: a T-SQL regular identifier in ASCII.</summary>
    public static bool IsCreatable(string? name) => IsValid(name) && Identifier().IsMatch(name!);

    /// <exception cref="ArgumentException">The name is not a valid session name; the message says why.</exception>
    public static void ThrowIfInvalid(string? name)
    {
        if (!IsValid(name))
        {
            throw new ArgumentException($"Session name '{name}' is not valid: use {Rule}.", nameof(name));
        }
    }

    /// <summary>
    /// The name as a delimited identifier, as QUOTENAME writes it: in brackets, a closing bracket doubled. The scripts
    /// quote on the server with QUOTENAME itself; every statement BackupXe prints for a DBA quotes here.
    /// </summary>
    public static string Quote(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return "[" + name.Replace("]", "]]", StringComparison.Ordinal) + "]";
    }

    /// <summary>
    /// The name as one argument of a printed <c>backupxe</c> command: as it is when it has only identifier characters,
    /// else in double quotes with a double quote, backslash, dollar or backquote escaped (POSIX shells and PowerShell
    /// both take a plain name, and a double-quoted one with spaces).
    /// </summary>
    public static string Argument(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (Identifier().IsMatch(name) && !name.Contains('$', StringComparison.Ordinal))
        {
            return name;
        }

        var escaped = new System.Text.StringBuilder(name.Length + 2).Append('"');
        foreach (var c in name)
        {
            if (c is '"' or '\\' or '$' or '`')
            {
                escaped.Append('\\');
            }

            escaped.Append(c);
        }

        return escaped.Append('"').ToString();
    }

    [GeneratedRegex(@"\A[A-Za-z_][A-Za-z0-9_$#@]*\z", RegexOptions.CultureInvariant)]
    private static partial Regex Identifier();
}
