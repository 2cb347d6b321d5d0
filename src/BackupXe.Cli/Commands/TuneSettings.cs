using BackupXe.Core.Tuning;

namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe tune</c> was asked for, parsed by <see cref="TuneOptions"/>.</summary>
internal sealed record TuneSettings
{
    public required TuneRequest Request { get; init; }

    /// <summary>What the command line got wrong, one line each, in the order said; the tune does not start with any.</summary>
    public IReadOnlyList<string> Problems { get; init; } = [];

    /// <summary>console, json or markdown.</summary>
    public required string Format { get; init; }

    /// <summary>Run the trials; without it only the plan is printed.</summary>
    public bool Execute { get; init; }

    /// <summary>The SQLite history the result is stored in; null for none.</summary>
    public string? HistoryFile { get; init; }

    /// <summary>The central repository's server and database the result is also stored in; null for none.</summary>
    public (string Server, string Database)? Central { get; init; }

    /// <summary>The instance name the stored result gets; null for the server's name.</summary>
    public string? Instance { get; init; }

    public required ServerConnection Connection { get; init; }
}
