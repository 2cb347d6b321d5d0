namespace BackupXe.Core.Events;

/// <summary>
/// One captured event, whatever it was read from (.xel, XE XML, an ERRORLOG line, a live stream).
/// </summary>
/// <param name="Timestamp">
/// XE sources give UTC (<see cref="DateTimeKind.Utc"/>); an ERRORLOG gives the server's local time with no
/// zone, kept as <see cref="DateTimeKind.Unspecified"/> so that no report claims a zone it does not know.
/// </param>
/// <param name="SessionId">The session_id action (XE) or the spid column (ERRORLOG); null when absent.</param>
public abstract record TraceEvent(DateTime Timestamp, int? SessionId)
{
    /// <summary>
    /// The timestamp of an event whose source has no clock (client output: SSMS, sqlcmd and Agent job steps print
    /// no times on their lines). Such events keep their input order; no duration is ever computed from them.
    /// </summary>
    public static DateTime NoClock => DateTime.MinValue;

    /// <summary>True when the source gave this event a time of its own.</summary>
    public bool HasClock => Timestamp != NoClock;
}

/// <summary>Whether a trace is about a backup or a restore (XE map operation_type: 0 Backup, 1 Restore).</summary>
public enum OperationKind
{
    Backup,
    Restore,

    /// <summary>
    /// The input does not say: a buffer configuration block (trace flag 3213) printed on its own, which is the same for
    /// a backup and a restore. Never compared, ranked or kept in a history.
    /// </summary>
    Unknown,
}

/// <summary>
/// <c>sqlserver.backup_restore_progress_trace</c>, or one ERRORLOG line written by trace flags 3004/3014/3213.
/// </summary>
public sealed record ProgressTraceEvent : TraceEvent
{
    // One of the two is set: the text as a string, or as its reader holds it, which keeps a 3014 log's percent lines
    // unwritten without a subtype (docs/performance.md, "ERRORLOG decisions").
    private readonly string? _message;
    private readonly ITraceText? _text;

    /// <summary>An event read with its text.</summary>
    /// <param name="timestamp">See <see cref="TraceEvent.Timestamp"/>.</param>
    /// <param name="sessionId">See <see cref="TraceEvent.SessionId"/>.</param>
    /// <param name="kind">From operation_type; null for ERRORLOG lines, where the message decides.</param>
    /// <param name="databaseName">The database_name field; null when the source does not carry it.</param>
    /// <param name="message">The trace_message (or the log text) as written, prefix and all.</param>
    /// <param name="traceLevel">0 major steps, 1 verbose I/O; null when unknown.</param>
    public ProgressTraceEvent(DateTime timestamp, int? sessionId, OperationKind? kind, string? databaseName, string message, int? traceLevel = null)
        : base(timestamp, sessionId)
    {
        ArgumentNullException.ThrowIfNull(message);
        Kind = kind;
        DatabaseName = databaseName;
        _message = message;
        TraceLevel = traceLevel;
    }

    /// <summary>An event whose text its reader holds in another form, written out only if asked for.</summary>
    /// <param name="timestamp">See <see cref="TraceEvent.Timestamp"/>.</param>
    /// <param name="sessionId">See <see cref="TraceEvent.SessionId"/>.</param>
    /// <param name="kind">From operation_type; null for ERRORLOG lines, where the message decides.</param>
    /// <param name="databaseName">The database_name field; null when the source does not carry it.</param>
    /// <param name="text">The text as the reader holds it.</param>
    /// <param name="traceLevel">0 major steps, 1 verbose I/O; null when unknown.</param>
    public ProgressTraceEvent(DateTime timestamp, int? sessionId, OperationKind? kind, string? databaseName, ITraceText text, int? traceLevel = null)
        : base(timestamp, sessionId)
    {
        ArgumentNullException.ThrowIfNull(text);
        Kind = kind;
        DatabaseName = databaseName;
        _text = text;
        TraceLevel = traceLevel;
    }

    /// <summary>From operation_type; null for ERRORLOG lines, where the message decides.</summary>
    public OperationKind? Kind { get; init; }

    /// <summary>The database_name field; null when the source does not carry it.</summary>
    public string? DatabaseName { get; init; }

    /// <summary>0 major steps, 1 verbose I/O; null when unknown.</summary>
    public int? TraceLevel { get; init; }

    /// <summary>The trace_message (or the log text) as written, prefix and all.</summary>
    public string Message
    {
        get => _message ?? _text!.Write();
        init
        {
            _message = value ?? throw new ArgumentNullException(nameof(value));
            _text = null;
        }
    }

    /// <summary>The text as its reader holds it when that is not a string; null for an event built with its text.</summary>
    public ITraceText? Text => _text;

    // Equal when what was captured is: the text, however it is held.
    public bool Equals(ProgressTraceEvent? other) =>
        other is not null && base.Equals(other) && Kind == other.Kind && DatabaseName == other.DatabaseName
        && Message == other.Message && TraceLevel == other.TraceLevel;

    public override int GetHashCode() => HashCode.Combine(base.GetHashCode(), Kind, DatabaseName, Message, TraceLevel);
}

/// <summary>
/// <c>sqlos.wait_info</c> or <c>sqlos.wait_info_external</c> at opcode End: the timestamp is when the wait ended.
/// </summary>
/// <param name="DurationMs">Total wait time in milliseconds.</param>
/// <param name="SignalDurationMs">Time between being signalled and running again (CPU queueing).</param>
/// <param name="IsExternal">True for wait_info_external (preemptive waits such as file zeroing).</param>
public sealed record WaitEvent(
    DateTime Timestamp,
    int? SessionId,
    string WaitType,
    long DurationMs,
    long SignalDurationMs,
    bool IsExternal = false) : TraceEvent(Timestamp, SessionId)
{
    /// <summary>When the wait began, derived from its end and its duration.</summary>
    public DateTime Began => Timestamp.AddTicks(
        -Math.Min(Timestamp.Ticks, Math.Clamp(DurationMs, 0, ServerRanges.MaxDurationMs) * TimeSpan.TicksPerMillisecond));
}

/// <summary><c>sqlserver.databases_backup_restore_throughput</c>: bytes moved since the previous report.</summary>
public sealed record ThroughputEvent(
    DateTime Timestamp,
    int? SessionId,
    int? DatabaseId,
    long Count,
    long Increment) : TraceEvent(Timestamp, SessionId);

/// <summary>
/// The client's own record of one BACKUP or RESTORE command: when it sent the command and when the command returned
/// (Ola Hallengren's CommandExecute prints "Date and time:" before and after each command, to the second). The
/// server's operation runs somewhere inside that span; the rest of it was spent outside the operation.
/// </summary>
/// <param name="Timestamp">When the source places it among its events (<see cref="TraceEvent.NoClock"/> for client output).</param>
/// <param name="Database">The database the command names; null when it names none.</param>
/// <param name="ResolutionSeconds">The precision of <paramref name="ClientStart"/> and <paramref name="ClientEnd"/>.</param>
/// <param name="Source">What printed the span, for the evidence ("Ola Hallengren's CommandExecute output").</param>
/// <param name="Bytes">The size a history export gave the command (msdb's backup_size); null when the engine's own messages say.</param>
public sealed record ClientCommandEvent(
    DateTime Timestamp,
    OperationKind Kind,
    OperationScope Scope,
    string? Database,
    DateTime ClientStart,
    DateTime ClientEnd,
    double ResolutionSeconds,
    string Source,
    bool Succeeded,
    RequestedReport? Requested = null,
    long? Bytes = null) : TraceEvent(Timestamp, null)
{
    /// <summary>The client's elapsed seconds.</summary>
    public double Seconds => (ClientEnd - ClientStart).TotalSeconds;
}

/// <summary>An event BackupXe does not analyse (e.g. rpc_completed): counted, not interpreted.</summary>
public sealed record OtherEvent(DateTime Timestamp, int? SessionId, string Name) : TraceEvent(Timestamp, SessionId);

/// <summary>
/// A BACKUP or RESTORE command the client sent but whose end it never printed (the output was cut, or the next command
/// began before this one's outcome), and for which the server printed nothing: still an operation, reported as
/// incomplete, as the history keeps it.
/// </summary>
public sealed record ClientCommandUnfinishedEvent(
    DateTime Timestamp,
    OperationKind Kind,
    OperationScope Scope,
    string? Database) : TraceEvent(Timestamp, null);
