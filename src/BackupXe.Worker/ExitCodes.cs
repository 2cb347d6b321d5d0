namespace BackupXe.Worker;

/// <summary>Distinct exit codes so that a service manager can tell "fix the configuration" from "try again".</summary>
public static class ExitCodes
{
    public const int Success = 0;

    /// <summary>Stopped on an unexpected error after starting; a restart may help (systemd's Restart=on-failure).</summary>
    public const int Failed = 1;

    public const int InvalidConfiguration = 2;
    public const int HistoryUnavailable = 3;
}
