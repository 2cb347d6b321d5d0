namespace BackupXe.Benchmarks.Synthetic;

/// <summary>One line of a synthetic trace, before it is written in a concrete format.</summary>
public abstract record TraceRecord(DateTime At, int Spid);

/// <summary>A backup_restore_progress_trace message; <paramref name="Database"/> is the prefix/field.</summary>
public sealed record ProgressRecord(DateTime At, int Spid, bool IsRestore, string Database, string Message, bool Prefixed = true) : TraceRecord(At, Spid);

/// <summary>A wait_info(_external) End event.</summary>
public sealed record WaitRecord(DateTime At, int Spid, string WaitType, int MapKey, long DurationMs, long SignalMs, bool External = false) : TraceRecord(At, Spid);

/// <summary>An ERRORLOG line from a process column other than spidNN (e.g. "Backup").</summary>
public sealed record ServerLineRecord(DateTime At, string Process, string Text) : TraceRecord(At, 0);
