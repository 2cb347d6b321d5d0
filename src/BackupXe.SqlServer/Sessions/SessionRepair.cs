namespace BackupXe.SqlServer.Sessions;

/// <summary>The one command that re-creates a session as it is, looking its map keys up again on this build.</summary>
public static class SessionRepair
{
    /// <summary>
    /// <c>backupxe session install</c> for <paramref name="status"/>'s session: its name and event file are kept, since
    /// install re-creates the session from its options (and drops the old one first).
    /// </summary>
    public static string Reinstall(string server, SessionStatus status)
    {
        ArgumentNullException.ThrowIfNull(status);
        var command = $"backupxe session install --server {server}";
        if (status.SessionName != SessionName.Default)
        {
            command += $" --session-name {SessionName.Argument(status.SessionName)}";
        }

        if (status.ConfiguredFile is { } file && file != CaptureSessionSettings.DefaultFilePath)
        {
            // Double quotes keep a Windows path whole in POSIX shells and PowerShell alike, unless it holds a
            // character one of them would read; such a path is named beside the command instead.
            command += file.IndexOfAny(['"', '$', '`']) < 0 && !file.EndsWith('\\')
                ? $" --file-path \"{file}\""
                : $" --file-path <the same path> (now {file})";
        }

        return command;
    }
}
