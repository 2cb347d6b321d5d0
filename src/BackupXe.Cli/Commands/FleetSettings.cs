namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe fleet</c> was asked for, parsed by <see cref="FleetCommand"/>.</summary>
internal sealed record FleetSettings
{
    /// <summary>The SQLite history read (the daemon's when --history is not given); not read when <see cref="Store"/> is given.</summary>
    public required string HistoryPath { get; init; }

    /// <summary>The central store's server (--server, its database --connect-database), read instead of the SQLite file; null for the file.</summary>
    public ServerConnection? Store { get; init; }

    /// <summary>The daemon's settings file whose BackupXe:Targets apply; null for the standard targets.</summary>
    public string? SettingsFile { get; init; }

    /// <summary>console, json or html.</summary>
    public required string Format { get; init; }

    /// <summary>Options that do not go together, one line each; nothing is read when there is one.</summary>
    public IReadOnlyList<string> Problems { get; init; } = [];
}
