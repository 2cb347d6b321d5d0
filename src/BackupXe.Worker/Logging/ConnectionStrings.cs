using System.Data.Common;
using System.Text.RegularExpressions;

namespace BackupXe.Worker.Logging;

/// <summary>
/// Keeps secrets out of logs. Written in the worker because BackupXe.SqlServer has no redactor yet on this
/// branch; when it gains one, this should defer to it.
/// </summary>
public static partial class ConnectionStrings
{
    public const string Mask = "*****";

    // The SqlClient keywords (and their synonyms) whose values are secrets.
    private static readonly HashSet<string> SecretKeywords = new(StringComparer.OrdinalIgnoreCase)
    {
        "Password", "Pwd", "Access Token", "AccessToken", "Client Secret", "ClientSecret",
    };

    /// <summary>The connection string with every secret value masked; the server and database stay readable.</summary>
    public static string Redact(string? connectionString)
    {
        if (string.IsNullOrWhiteSpace(connectionString))
        {
            return string.Empty;
        }

        var builder = new DbConnectionStringBuilder();
        try
        {
            builder.ConnectionString = connectionString;
        }
        catch (ArgumentException)
        {
            // A string we cannot parse may still hold a password somewhere: show none of it.
            return "(unparseable connection string, hidden)";
        }

        foreach (var keyword in builder.Keys.Cast<string>().ToList())
        {
            if (SecretKeywords.Contains(keyword))
            {
                builder[keyword] = Mask;
            }
        }

        return builder.ConnectionString;
    }

    /// <summary>
    /// Masks "Password=...;"-style secrets inside free text, such as an exception message that quotes the
    /// connection string it failed with.
    /// </summary>
    public static string Scrub(string text) => SecretInText().Replace(text, match => $"{match.Groups["key"].Value}={Mask}");

    [GeneratedRegex(@"(?<key>\b(?:Password|Pwd|Access\s?Token|Client\s?Secret))\s*=\s*(?:'[^']*'|""[^""]*""|[^;""']*)", RegexOptions.IgnoreCase)]
    private static partial Regex SecretInText();
}
