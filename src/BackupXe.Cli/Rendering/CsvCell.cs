namespace BackupXe.Cli.Rendering;

/// <summary>One CSV cell as every CSV BackupXe writes it (<c>history</c>, <c>events</c>).</summary>
internal static class CsvCell
{
    /// <summary>
    /// RFC 4180: quoted when it holds a comma, quote or line break. A cell a spreadsheet would run as a formula
    /// (starting with =, +, -, @, a tab or a carriage return) gets a leading apostrophe, so a database or event name
    /// from an input cannot make the sheet call out or compute.
    /// </summary>
    public static string Of(string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            return string.Empty;
        }

        if (value[0] is '=' or '+' or '-' or '@' or '\t' or '\r')
        {
            value = "'" + value;
        }

        return value.AsSpan().IndexOfAny(",\"\r\n") >= 0 ? "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"" : value;
    }
}
