using System.Text.RegularExpressions;

namespace BackupXe.SqlServer.Sessions;

/// <summary>
/// What BackupXe accepts as an event session name: a T-SQL regular identifier in ASCII. The scripts quote the
/// name with QUOTENAME anyway; the narrow rule keeps names typeable on any command line and in file names.
/// </summary>
public static partial class SessionName
{
    /// <summary>The name the scripts ship with.</summary>
    public const string Default = "BackupXe";

    /// <summary>sysname holds 128 characters.</summary>
    public const int MaxLength = 128;

    public static bool IsValid(string? name) => name is not null && name.Length <= MaxLength && Identifier().IsMatch(name);

    /// <exception cref="ArgumentException">The name is not a valid session name; the message says why.</exception>
    public static void ThrowIfInvalid(string? name)
    {
        if (!IsValid(name))
        {
            throw new ArgumentException(
                $"Session name '{name}' is not valid: use up to {MaxLength} letters, digits, _, $, # or @, starting with a letter or _.",
                nameof(name));
        }
    }

    [GeneratedRegex(@"\A[A-Za-z_][A-Za-z0-9_$#@]*\z", RegexOptions.CultureInvariant)]
    private static partial Regex Identifier();
}
