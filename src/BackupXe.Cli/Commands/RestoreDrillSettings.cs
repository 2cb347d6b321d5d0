using BackupXe.Core.Drill;

namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe restore-drill</c> was asked for, parsed by <see cref="RestoreDrillOptions"/>.</summary>
internal sealed record RestoreDrillSettings
{
    /// <summary>The drill asked for; null when the command line has a problem.</summary>
    public DrillRequest? Request { get; init; }

    /// <summary>How far back msdb is read for the chain, the server's local time.</summary>
    public DateTime Since { get; init; }

    /// <summary>The server whose msdb holds the backups; null for the target server itself.</summary>
    public string? FromServer { get; init; }

    /// <summary>The history that gives the estimate's rates and, with <see cref="Execute"/>, takes the drill; null for none.</summary>
    public string? HistoryFile { get; init; }

    /// <summary>The instance the stored drill is named by; null for the source server's name.</summary>
    public string? Instance { get; init; }

    /// <summary>Run the drill; without it only the plan is printed.</summary>
    public bool Execute { get; init; }

    /// <summary>console, json, markdown or html.</summary>
    public required string Format { get; init; }

    public required ServerConnection Connection { get; init; }

    /// <summary>What the command line got wrong (the first rule broken); nothing is read with it.</summary>
    public string? Problem { get; init; }
}
