using System.Globalization;
using System.Reflection;
using System.Text.RegularExpressions;
using BackupXe.SqlServer.Requirements;

namespace BackupXe.SqlServer.Sessions;

/// <summary>
/// The T-SQL in <c>sessions/*.sql</c>, read from this assembly so that what BackupXe runs is byte for byte
/// what a DBA can open in SSMS. Rendering only replaces the values of the <c>DECLARE</c> lines at the top.
/// </summary>
public static class SessionScripts
{
    /// <summary>Creates (or re-creates) and starts the capture session.</summary>
    public const string InstallFile = "backupxe-session.sql";

    /// <summary>Stops and drops the capture session if it exists.</summary>
    public const string DropFile = "backupxe-session-drop.sql";

    /// <summary>One row: defined, running, targets, dropped events and buffers, files.</summary>
    public const string StatusFile = "backupxe-session-status.sql";

    /// <summary>The session's stored predicates and events beside this build's wait keys, events and fields.</summary>
    public const string DriftFile = "backupxe-session-drift.sql";

    /// <summary>Version, edition and the current login's effective server permissions.</summary>
    public const string ServerFactsFile = "backupxe-server-facts.sql";

    /// <summary>The install script as shipped (session <c>BackupXe</c>, file <c>BackupXe.xel</c>).</summary>
    public static string Install => Read(InstallFile);

    public static string Drop => Read(DropFile);

    public static string Status => Read(StatusFile);

    public static string Drift => Read(DriftFile);

    /// <summary>The query whose results fill <see cref="ServerFacts"/>; it takes no parameters.</summary>
    public static string ServerFacts => Read(ServerFactsFile);

    /// <summary>The install script for <paramref name="settings"/>.</summary>
    /// <exception cref="ArgumentException">A setting that cannot be put into the script safely.</exception>
    public static string RenderInstall(CaptureSessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        settings.ThrowIfInvalidForCreate();
        var script = Install;
        script = ReplaceDeclaredValue(script, "SessionName", UnicodeLiteral(settings.SessionName));
        script = ReplaceDeclaredValue(script, "FilePath", UnicodeLiteral(settings.FilePath));
        script = ReplaceDeclaredValue(script, "MaxFileSizeMb", settings.MaxFileSizeMb.ToString(CultureInfo.InvariantCulture));
        script = ReplaceDeclaredValue(script, "MaxRolloverFiles", settings.MaxRolloverFiles.ToString(CultureInfo.InvariantCulture));
        script = ReplaceDeclaredValue(script, "StartWithServer", settings.StartWithServer ? "1" : "0");
        return script;
    }

    /// <summary>The drop script for session <paramref name="sessionName"/>.</summary>
    public static string RenderDrop(string sessionName) => WithSessionName(Drop, sessionName);

    /// <summary>The status query for session <paramref name="sessionName"/>.</summary>
    public static string RenderStatus(string sessionName) => WithSessionName(Status, sessionName);

    /// <summary>The drift query for session <paramref name="sessionName"/>.</summary>
    public static string RenderDrift(string sessionName) => WithSessionName(Drift, sessionName);

    private static string WithSessionName(string script, string sessionName)
    {
        SessionName.ThrowIfInvalid(sessionName);
        return ReplaceDeclaredValue(script, "SessionName", UnicodeLiteral(sessionName));
    }

    /// <summary>A T-SQL N'...' literal: doubling the quote is the whole of T-SQL string escaping.</summary>
    internal static string UnicodeLiteral(string value) => "N'" + value.Replace("'", "''", StringComparison.Ordinal) + "'";

    private static string ReplaceDeclaredValue(string script, string variable, string literal)
    {
        // Matches "DECLARE @Name <type> = <value>;" at the start of a line; the value is a literal without ';'.
        var declaration = new Regex(
            @"^(DECLARE @" + variable + @"\s+[A-Za-z]+(?:\(\d+\))?\s*=\s*)[^;\r\n]+(;)",
            RegexOptions.Multiline | RegexOptions.CultureInvariant,
            TimeSpan.FromSeconds(1));
        var matches = declaration.Matches(script);
        if (matches.Count != 1)
        {
            // The scripts are ours: a missing or repeated declaration is a defect, not a user error.
            throw new InvalidOperationException(
                $"The embedded script has {matches.Count} declarations of @{variable}; expected exactly one.");
        }

        var match = matches[0];
        return script[..match.Index]
            + match.Groups[1].Value + literal + match.Groups[2].Value
            + script[(match.Index + match.Length)..];
    }

    private static string Read(string file)
    {
        var resource = "BackupXe.Sessions." + file;
        using var stream = typeof(SessionScripts).Assembly.GetManifestResourceStream(resource)
            ?? throw new InvalidOperationException($"The script {resource} is not embedded in {typeof(SessionScripts).Assembly.GetName().Name}.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
