namespace BackupXe.Worker;

/// <summary>
/// Distinct exit codes so that a service manager can tell "fix the configuration" from "try again"
/// (docs/deploy.md maps them to systemd's and the Service Control Manager's restart policies).
/// </summary>
internal static class ExitCodes
{
    /// <summary>Stopped normally (Ctrl-C, SIGTERM, service stop), or --validate found the configuration valid.</summary>
    public const int Success = 0;

    /// <summary>Stopped on an unexpected error after starting; a restart may help (systemd's Restart=on-failure).</summary>
    public const int Failed = 1;

    /// <summary>
    /// The configuration cannot be read or is invalid, at start-up or from --validate; a restart cannot help
    /// (RestartPreventExitStatus=2 in deploy/systemd/backupxe.service).
    /// </summary>
    public const int InvalidConfiguration = 2;

    /// <summary>The history file cannot be created, is read-only, damaged or another program's database.</summary>
    public const int HistoryUnavailable = 3;
}
