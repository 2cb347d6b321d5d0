namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe check</c> was asked for: the capture session looked for, console or json, the server.</summary>
internal sealed record CheckSettings(string SessionName, string Format, ServerConnection Connection);
