using BackupXe.SqlServer.Msdb;

namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe history import</c> was asked for, parsed by <see cref="HistoryImportCommand"/>.</summary>
internal sealed record HistoryImportSettings
{
    /// <summary>The SQLite history added to, created when missing.</summary>
    public required string HistoryPath { get; init; }

    /// <summary>The job output, XE and ERRORLOG files, each once, in the order named.</summary>
    public IReadOnlyList<string> Files { get; init; } = [];

    /// <summary>The databases imported; empty for every one.</summary>
    public IReadOnlySet<string> Databases { get; init; } = new HashSet<string>();

    /// <summary>The instance the runs are stored under; null for the name the input gives.</summary>
    public string? Instance { get; init; }

    /// <summary>What msdb and CommandLog are read for; null when no server is named.</summary>
    public ServerHistoryRequest? Server { get; init; }

    public required ServerConnection Connection { get; init; }

    /// <summary>What the command line got wrong, one line each; nothing is imported with any.</summary>
    public IReadOnlyList<string> Problems { get; init; } = [];
}
