namespace BackupXe.Core.Reporting;

/// <summary>
/// The restore trials of a stored tune (<c>tune --restore</c>): each trial's options and measured rate, the best and
/// its gain over the server's defaults, Instant File Initialization, why they stopped, and the scratch databases the
/// server would not drop. Stored inside <see cref="TuneRecord"/>, so a history row holds both sides of the tune.
/// </summary>
public sealed record RestoreTuneRecord
{
    /// <summary>"BUFFERCOUNT 64, MAXTRANSFERSIZE 4096 KB"; null when no trial was the best (none ran, or every one differed).</summary>
    public string? BestOptions { get; init; }

    public double? BestMBps { get; init; }

    /// <summary>The first trial, at the server's defaults.</summary>
    public double? DefaultsMBps { get; init; }

    /// <summary>Best over the defaults, minus one.</summary>
    public double? Gain { get; init; }

    /// <summary>As the server reported it (sys.dm_server_services); null when it could not be read.</summary>
    public bool? InstantFileInitialization { get; init; }

    public required string StopReason { get; init; }

    public bool Refused { get; init; }

    public IReadOnlyList<RestoreTrialRecord> Trials { get; init; } = [];

    /// <summary>DROP DATABASE statements the server refused, for a DBA to run.</summary>
    public IReadOnlyList<string> NotDropped { get; init; } = [];
}

/// <summary>
/// One restore trial as the history keeps it: its options, mean rate over its runs, the seconds zeroing took in its last
/// run, what limited it (a <c>RestoreSide</c> in kebab case), and the options the server did not apply as asked.
/// </summary>
public sealed record RestoreTrialRecord
{
    public int Number { get; init; }

    /// <summary>"BUFFERCOUNT 32, MAXTRANSFERSIZE 4096 KB", "default" for an option left to the server.</summary>
    public required string Options { get; init; }

    public double RateMBps { get; init; }

    public int Runs { get; init; }

    public double? ZeroingSeconds { get; init; }

    /// <summary>file-zeroing, redo, backup-read, data-file-write, buffers, none-dominant or cannot-tell; null when not diagnosed.</summary>
    public string? Limit { get; init; }

    /// <summary>True when a run used other options than asked: the trial measured something else.</summary>
    public bool OptionsDiffer { get; init; }

    public IReadOnlyList<string> Differences { get; init; } = [];
}
