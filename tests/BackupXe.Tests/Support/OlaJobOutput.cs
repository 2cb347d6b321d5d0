using System.Globalization;
using System.Text;

namespace BackupXe.Tests.Support;

/// <summary>
/// Writes text in the format of Ola Hallengren's DatabaseBackup / CommandExecute messages (checked against the
/// public MaintenanceSolution source): a header, then per command "Date and time:", "Database context:",
/// "Command:", the engine's messages, "Outcome:", "Duration: [d.]hh:mm:ss", "Date and time:" and a TAB line.
/// </summary>
internal sealed class OlaJobOutput
{
    private readonly StringBuilder _text = new();
    private readonly string _sqlState;

    /// <param name="agentSuffix">True to end each message with " [SQLSTATE 01000]" as SQL Agent's T-SQL job step output does.</param>
    /// <param name="version">The header's "Version:" line, SERVERPROPERTY('ProductVersion') of the server the job ran on.</param>
    public OlaJobOutput(string server = "PROD01", bool agentSuffix = false, string version = "15.0.4360.2")
    {
        _sqlState = agentSuffix ? " [SQLSTATE 01000]" : string.Empty;
        var start = new DateTime(2024, 5, 1, 0, 59, 59);
        Line($"Date and time: {Stamp(start)}");
        Line($"Server: {server}");
        Line($"Version: {version}");
        Line("Edition: Enterprise Edition: Core-based Licensing (64-bit)");
        Line("Platform: Windows");
        Line("Procedure: [master].[dbo].[DatabaseBackup]");
        Line("Parameters: @Databases = 'USER_DATABASES', @BackupType = 'FULL', @Verify = 'Y', @Compress = 'Y', @CheckSum = 'Y'");
        Line("Version: 2022-12-03 17:23:44");
        Line("Source: https://ola.hallengren.com");
        Line("\t");
    }

    /// <summary>One command. <paramref name="pages"/>/<paramref name="engineSeconds"/> add the engine's completion line; null leaves the engine's messages out.</summary>
    public OlaJobOutput Command(
        DateTime start, TimeSpan duration, string command, string outcome = "Succeeded",
        long? pages = null, double? engineSeconds = null, string? error = null, string? comment = null)
    {
        Line($"Date and time: {Stamp(start)}");
        Line("Database context: [master]");
        Line($"Command: {command}");
        if (comment is not null)
        {
            Line($"Comment: {comment}");
        }

        if (pages is { } p && engineSeconds is { } s)
        {
            Line(string.Create(CultureInfo.InvariantCulture, $"Processed {p - 2} pages for database 'Sales', file 'Sales' on file 1."));
            Line("Processed 2 pages for database 'Sales', file 'Sales_log' on file 1.");
            var verb = command.StartsWith("BACKUP LOG", StringComparison.OrdinalIgnoreCase) ? "BACKUP LOG" : "BACKUP DATABASE";
            Line(string.Create(CultureInfo.InvariantCulture, $"{verb} successfully processed {p} pages in {s:0.000} seconds ({p * 8192 / 1048576.0 / s:0.000} MB/sec)."));
        }

        if (error is not null)
        {
            Line($"Msg 3201, {error}");
            Line("Msg 3013, BACKUP DATABASE is terminating abnormally.");
        }

        Line($"Outcome: {outcome}");
        var days = (int)duration.TotalDays;
        Line($"Duration: {(days > 0 ? days.ToString(CultureInfo.InvariantCulture) + "." : string.Empty)}{duration.Hours:00}:{duration.Minutes:00}:{duration.Seconds:00}");
        Line($"Date and time: {Stamp(start + duration)}");
        Line("\t");
        return this;
    }

    public OlaJobOutput Raw(string line)
    {
        _text.Append(line).Append("\r\n");
        return this;
    }

    public override string ToString() => _text.ToString();

    public string WriteTo(string folder, string name)
    {
        var path = Path.Combine(folder, name);
        File.WriteAllText(path, ToString());
        return path;
    }

    private void Line(string text) => _text.Append(text).Append(text == "\t" ? string.Empty : _sqlState).Append("\r\n");

    private static string Stamp(DateTime at) => at.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture);
}
