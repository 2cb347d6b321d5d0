namespace BackupXe.SqlServer.Preflight;

/// <summary>How one preflight item came out.</summary>
public enum PreflightOutcome
{
    Pass,
    Warn,
    Fail,
}

/// <summary>One line of <c>backupxe check</c>: what was checked, what was found, and the fix when it is not a pass.</summary>
public sealed record PreflightCheck(string Name, PreflightOutcome Outcome, string Finding, string? Fix = null);
