namespace BackupXe.SqlServer.Requests;

/// <summary>
/// One BACKUP or RESTORE request as <c>sys.dm_exec_requests</c> shows it: what a watch started mid-operation
/// knows before (or without) the operation's trace events. Times are UTC, converted on the server.
/// </summary>
/// <param name="SessionId">session_id (smallint): ties the request to the trace events of the same session.</param>
/// <param name="Command">command, e.g. "BACKUP DATABASE", "BACKUP LOG", "RESTORE DATABASE".</param>
/// <param name="Database">
/// The database the running BACKUP or RESTORE statement names (its text, parsed); null while it is not yet known: the
/// text names it through a variable or cannot be read. Never <c>database_id</c>'s database, which is the one the request
/// runs in (<see cref="RunsIn"/>).
/// </param>
/// <param name="PercentComplete">percent_complete (real), 0 to 100.</param>
/// <param name="EstimatedRemaining">estimated_completion_time (bigint, milliseconds); null when the server gives none.</param>
/// <param name="StartUtc">start_time (datetime, server local) converted to UTC on the server.</param>
/// <param name="ServerUtc">The server's clock when the row was read, so elapsed time does not depend on this machine's clock.</param>
/// <param name="WaitType">wait_type: what the request waits on now; null when it is running.</param>
/// <param name="WaitTime">wait_time (int, milliseconds) of the current wait.</param>
/// <param name="LastWaitType">last_wait_type.</param>
public sealed record RunningRequest(
    int SessionId,
    string Command,
    string? Database,
    double PercentComplete,
    TimeSpan? EstimatedRemaining,
    DateTime StartUtc,
    DateTime ServerUtc,
    string? WaitType,
    TimeSpan WaitTime,
    string? LastWaitType)
{
    /// <summary>DB_NAME(database_id): the database the request executes in (a job step's master), not the one backed up.</summary>
    public string? RunsIn { get; init; }

    /// <summary>BACKUP DATABASE, BACKUP LOG: a backup; RESTORE ...: a restore.</summary>
    public bool IsRestore => Command.StartsWith("RESTORE", StringComparison.OrdinalIgnoreCase);

    /// <summary>How long the request has run, by the server's clock (never negative).</summary>
    public TimeSpan Elapsed => ServerUtc > StartUtc ? ServerUtc - StartUtc : TimeSpan.Zero;
}

/// <summary>What one read of <c>sys.dm_exec_requests</c> gave: the requests, or why none can be shown.</summary>
/// <param name="Limitation">Set when the login cannot see other sessions' requests or the read failed: one line saying so.</param>
public sealed record RunningRequestSnapshot(IReadOnlyList<RunningRequest> Requests, string? Limitation)
{
    public static RunningRequestSnapshot Unavailable(string limitation) => new([], limitation);
}
