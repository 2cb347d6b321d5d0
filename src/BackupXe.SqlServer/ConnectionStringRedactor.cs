using System.Collections.Frozen;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer;

/// <summary>
/// Hides secrets before a connection string, or a message that echoes one, reaches a console, a log or a
/// report. SqlClient exceptions can quote the connection string they failed to parse, so every failure
/// reason the live pipeline reports goes through <see cref="RedactMessage"/>. The user name is kept: it is
/// what a DBA needs to fix a login or permission problem.
/// </summary>
public static partial class ConnectionStringRedactor
{
    /// <summary>What replaces a secret value.</summary>
    public const string Mask = "***";

    // Compared without spaces, underscores or case: "Access Token", "AccessToken" and "access_token" alike.
    private static readonly FrozenSet<string> SecretKeys = FrozenSet.Create(
        StringComparer.OrdinalIgnoreCase,
        "password", "pwd", "accesstoken", "token", "clientsecret", "accountkey", "sharedaccesssignature");

    /// <summary>
    /// <paramref name="connectionString"/> with every secret value masked; keys, order, other values and
    /// separators kept as written. Follows the ADO.NET syntax: a value runs to the next ';' unless it is quoted
    /// with ' or ", where a doubled quote stands for one.
    /// </summary>
    public static string Redact(string? connectionString)
    {
        if (string.IsNullOrEmpty(connectionString))
        {
            return connectionString ?? string.Empty;
        }

        var text = connectionString;
        var result = new StringBuilder(text.Length);
        var position = 0;
        while (position < text.Length)
        {
            if (text[position] == ';')
            {
                result.Append(';');
                position++;
                continue;
            }

            var equals = text.IndexOf('=', position);
            if (equals < 0)
            {
                result.Append(text, position, text.Length - position);
                break;
            }

            var key = text[position..equals];
            var valueStart = equals + 1;
            var valueEnd = EndOfValue(text, valueStart);
            result.Append(text, position, valueStart - position);
            if (IsSecret(key) && !string.IsNullOrWhiteSpace(text[valueStart..valueEnd]))
            {
                result.Append(Mask);
            }
            else
            {
                result.Append(text, valueStart, valueEnd - valueStart);
            }

            position = valueEnd;
            if (position < text.Length)
            {
                result.Append(';');
                position++;
            }
        }

        return result.ToString();
    }

    /// <summary>
    /// <paramref name="connectionString"/> as Microsoft.Data.SqlClient itself parses it, with the password masked:
    /// what the driver would send is what is hidden, whatever synonym (Pwd, password) or quoting was used.
    /// Text the driver rejects goes through <see cref="Redact"/> instead, because a rejected string can still
    /// hold a secret.
    /// </summary>
    public static string RedactWithBuilder(string? connectionString)
    {
        if (string.IsNullOrEmpty(connectionString))
        {
            return connectionString ?? string.Empty;
        }

        SqlConnectionStringBuilder builder;
        try
        {
            builder = new SqlConnectionStringBuilder(connectionString);
        }
        catch (Exception exception) when (exception is ArgumentException or FormatException or KeyNotFoundException)
        {
            return Redact(connectionString);
        }

        if (!string.IsNullOrEmpty(builder.Password))
        {
            builder.Password = Mask;
        }

        // Keys the builder does not know were already refused above; what is left may still carry a secret in a
        // value we do not model (an account key in Initial Catalog is not ours to judge), so the text pass runs too.
        return Redact(builder.ConnectionString);
    }

    /// <summary>
    /// <paramref name="message"/> with the value after any secret key ("Password=...", "pwd = '...'") masked,
    /// and the signature of a SAS URL (backup to URL) too. In free text an unquoted value ends at ';', a quote
    /// or a line break: masking too much is better than too little.
    /// </summary>
    public static string RedactMessage(string? message)
    {
        if (string.IsNullOrEmpty(message))
        {
            return message ?? string.Empty;
        }

        var masked = SecretInText().Replace(message, m => m.Groups["key"].Value + Mask);
        return SasSignature().Replace(masked, m => m.Groups["key"].Value + Mask);
    }

    private static bool IsSecret(string key) =>
        SecretKeys.Contains(key.Replace(" ", string.Empty, StringComparison.Ordinal)
            .Replace("_", string.Empty, StringComparison.Ordinal)
            .Trim());

    private static int EndOfValue(string text, int start)
    {
        var position = start;
        while (position < text.Length && char.IsWhiteSpace(text[position]))
        {
            position++;
        }

        if (position < text.Length && text[position] is '\'' or '"')
        {
            var quote = text[position];
            position++;
            while (position < text.Length)
            {
                if (text[position] == quote)
                {
                    if (position + 1 < text.Length && text[position + 1] == quote)
                    {
                        position += 2;
                        continue;
                    }

                    position++;
                    break;
                }

                position++;
            }

            // Whatever follows the closing quote up to ';' still belongs to this pair.
            var semicolon = text.IndexOf(';', position);
            return semicolon < 0 ? text.Length : semicolon;
        }

        var end = text.IndexOf(';', position);
        return end < 0 ? text.Length : end;
    }

    [GeneratedRegex(
        @"(?<key>\b(?:password|pwd|access[ _]?token|token|client[ _]?secret|account[ _]?key|shared[ _]?access[ _]?signature)\s*=\s*)(?<value>'(?:[^']|'')*'|""(?:[^""]|"""")*""|[^;'""\r\n]+)",
        RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex SecretInText();

    [GeneratedRegex(@"(?<key>[?&]sig=)[^&\s'""]+", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex SasSignature();
}
