using System.Globalization;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>The named steps of an operation; reported in kebab-case (copy-data, wait-log-zero...).</summary>
public enum OperationPhase
{
    // backup
    Startup,
    Checkpoint,
    Estimate,
    CopyData,
    CopyLog,
    Finalize,

    // restore
    Planning,
    PrepareContainers,
    TransferData,
    WaitLogZero,
    Redo,
    Recovery,

    // A restore of a database with memory-optimized tables: its recovery waits (WAIT_XTP_RECOVERY) while the In-Memory
    // OLTP engine loads the checkpoint file pairs into memory. No trace flag names this step in any public sample, so
    // the phase is timed from those waits, never from a message (docs/diagnosis.md, dialects).
    InMemoryLoad,

    // SQL Server 2022+ restores of an older database: "Converting database ..." and its upgrade steps run
    // after the data copy (docs/diagnosis.md, dialects).
    Upgrade,
}

/// <summary>Whether a marker opens or closes a phase.</summary>
public enum PhaseEdge
{
    Begin,
    End,
}

/// <summary>The buffer configuration block lines (trace flag 3213), old and new labels mapped to one name.</summary>
public enum BufferParameter
{
    MemoryLimit,
    BufferCount,
    SetsOfBuffers,
    MaxTransferSize,
    MinMaxTransferSize,
    TotalBufferSpace,
    TabularDataDeviceCount,
    FulltextDataDeviceCount,
    FilestreamDeviceCount,
    TxfDeviceCount,
    FileTreeDataDeviceCount,
    FilesystemIoAlignment,
    MediaBufferCount,
    MediaBufferSize,
    EncodeBufferCount,
    BuffersPerReadStream,
    BuffersPerWriteStream,
}

/// <summary>
/// The meaning of one trace message. <see cref="TraceMessageParser"/> turns text into one of these; a text it
/// does not know becomes <see cref="UnknownMessage"/>, never an error.
/// </summary>
public abstract record TraceMessage;

/// <summary>"BACKUP DATABASE started", "RESTORE LOG started", or the 3004 "RestoreDatabase: Database X".</summary>
internal sealed record OperationStarted(OperationKind Kind, OperationScope Scope, string? Database = null) : TraceMessage;

/// <summary>"BACKUP DATABASE finished" and the like (loosely matched: the closing wording is known only from prose).</summary>
internal sealed record OperationFinished(OperationKind Kind, OperationScope? Scope) : TraceMessage;

/// <summary>A failure: "BACKUP failed to complete the command ...", "... terminated abnormally", an error line.</summary>
/// <param name="Scope">What it was of, when the line says: "RESTORE DATABASE is terminating abnormally."; else null.</param>
public sealed record OperationFailed(OperationKind? Kind, string Reason, OperationScope? Scope = null) : TraceMessage
{
    /// <summary>The database the line names: 3041's "BACKUP failed to complete the command BACKUP LOG Sales."; else null.</summary>
    public string? Database { get; init; }
}

/// <summary>
/// The ERRORLOG's "Error: 3041, Severity: 16, State: 1.": the number of the error whose text the same process writes on
/// its next line (the correlator joins the two into an <see cref="EngineError"/>).
/// </summary>
internal sealed record ErrorHeader(int Number, int Severity, int? State, string Text) : TraceMessage;

/// <summary>
/// An engine error as a client prints it: SSMS and sqlcmd write "Msg 845, Level 17, State 1, Line 2" with the text on the
/// next line (<see cref="Text"/> null until <see cref="ClientTranscript"/> joins them), SQL Agent "Msg 3201, Sev 16,
/// State 1, Line 1 : text", Ola Hallengren's CommandExecute "Msg 3201, text".
/// </summary>
/// <param name="Severity">The level; null when the line does not give it.</param>
public sealed record EngineError(int Number, int? Severity, string? Text) : TraceMessage
{
    /// <summary>The generic "... is terminating abnormally." that follows the real error of a failed BACKUP or RESTORE.</summary>
    public const int TerminatingAbnormally = 3013;

    /// <summary>"BACKUP failed to complete the command ... Check the backup application log for detailed messages." (ERRORLOG).</summary>
    public const int FailedToComplete = 3041;

    /// <summary>True for the errors that close every failure and say nothing of why (3013, 3041): any other error is the cause.</summary>
    public static bool IsGeneric(int number) => number is TerminatingAbnormally or FailedToComplete;

    /// <summary>"Msg 845, Level 17: text", the form the transcript hands on once the header and its text are joined.</summary>
    public string Joined() => Severity is { } level
        ? string.Create(CultureInfo.InvariantCulture, $"Msg {Number}, Level {level}: {Text}")
        : string.Create(CultureInfo.InvariantCulture, $"Msg {Number}, {Text}");
}

/// <summary>"Backup/Restore buffer configuration parameters": the block that follows belongs to the same operation.</summary>
public sealed record BufferConfigurationHeader : TraceMessage;

/// <summary>One line of the buffer block. Sizes are in bytes (MB and KB converted with 1024), counts as counts.</summary>
public sealed record BufferParameterLine(BufferParameter Parameter, long Value) : TraceMessage;

/// <summary>"Effective options: Checksum=1, Compression=1, Encryption=0, BufferCount=7, MaxTransferSize=1024 KB".</summary>
internal sealed record EffectiveOptions(
    bool? Checksum,
    bool? Compression,
    bool? Encryption,
    int? BufferCount,
    long? MaxTransferSizeBytes) : TraceMessage;

/// <summary>"Estimated total size = 95303680 bytes (data size = 95289344 bytes, log size = 14336 bytes)".</summary>
internal sealed record EstimatedSize(long TotalBytes, long? DataBytes, long? LogBytes) : TraceMessage;

/// <summary>"1 percent (1048576/95303680 bytes) processed".</summary>
internal sealed record PercentProcessed(int Percent, long Bytes, long TotalBytes) : TraceMessage
{
    /// <summary>The line as the server writes it, with no prefix: "1 percent (1048576/95303680 bytes) processed".</summary>
    public string ServerText() => string.Create(
        CultureInfo.InvariantCulture, $"{Percent} percent ({Bytes}/{TotalBytes} bytes) processed");
}

/// <summary>
/// "10 percent processed.": the client's STATS line (SSMS, sqlcmd, Agent job steps), which carries no byte counts.
/// </summary>
public sealed record PercentReached(int Percent) : TraceMessage
{
    /// <summary>The kind SQL Server 2000's wording names ("10 percent restored.", "10 percent backed up."); null for "processed".</summary>
    public OperationKind? Kind { get; init; }
}

/// <summary>"Processed 292888 pages for database 'TestDB', file 'TestDB' on file 1." (client output, one per file).</summary>
/// <param name="BackupFileNumber">The backup set's position in the media ("on file 1"); null when absent.</param>
public sealed record FilePagesProcessed(string Database, string LogicalFile, long Pages, int? BackupFileNumber) : TraceMessage;

/// <summary>
/// SQL Server 2022+ after a restore's data copy: "Converting database 'D' from version 904 to the current version 957."
/// (<see cref="IsStep"/> false) and "Database 'D' running the upgrade step from version 904 to version 905." (true).
/// </summary>
public sealed record DatabaseUpgrade(string Database, int FromVersion, int ToVersion, bool IsStep) : TraceMessage;

/// <summary>
/// "BackupStream(0): Starting MSDA of size 384 extents" (SQL Server 2008 R2) or "BackupStream(0): Writing MSDA of size
/// 1296 extents" (2014): the stream starts copying data extents. In a 2008 R2 trace flag 3014 log it is the first line.
/// </summary>
internal sealed record MsdaStarted(int Stream, long Extents) : TraceMessage;

/// <summary>
/// "The database 'X' is marked RESTORING and is in a state that does not allow recovery to be run.": default logging
/// writes it on the restoring session's spid, before the restore's own lines on the <c>Backup</c> column (S12).
/// </summary>
internal sealed record DatabaseMarkedRestoring(string Database) : TraceMessage;

/// <summary>The steps of a snapshot backup, as the engine writes them (SQL Server 2022 T-SQL snapshot backup, and VSS).</summary>
public enum SnapshotEvent
{
    /// <summary>"Database 'D' acquired suspend locks in session N." (T-SQL snapshot).</summary>
    SuspendLocksAcquired,

    /// <summary>"I/O is frozen on database D. No user action is required. ..." (both).</summary>
    IoFrozen,

    /// <summary>"Database 'D' successfully suspended for snapshot backup in session N." (T-SQL snapshot).</summary>
    Suspended,

    /// <summary>"I/O was resumed on database D. No user action is required." (both).</summary>
    IoResumed,

    /// <summary>"Database 'D' released suspend locks in session N." (T-SQL snapshot).</summary>
    SuspendLocksReleased,

    /// <summary>"Database 'D' originally suspended for snapshot backup in session N successfully resumed in session M." (T-SQL snapshot).</summary>
    Resumed,
}

/// <summary>One step of a snapshot backup: the database's writes are frozen while the storage takes its snapshot.</summary>
public sealed record SnapshotStep(string Database, SnapshotEvent Event) : TraceMessage
{
    /// <summary>True for the steps only ALTER DATABASE ... SET SUSPEND_FOR_SNAPSHOT_BACKUP writes (SQL Server 2022+).</summary>
    public bool IsTsqlSnapshot => Event is not (SnapshotEvent.IoFrozen or SnapshotEvent.IoResumed);
}

/// <summary>"Number of data file readers = 1".</summary>
internal sealed record DataFileReaders(int Count) : TraceMessage;

/// <summary>"Reading the data file D:\x.mdf" (2014+) or "Started file D:\x.mdf" (2008 R2).</summary>
internal sealed record DataFileReadStarted(string Path) : TraceMessage;

/// <summary>"Completed reading the data file D:\x.mdf" or "Completed file D:\x.mdf".</summary>
internal sealed record DataFileReadCompleted(string Path) : TraceMessage;

/// <summary>"BackupStream(0): Writing leading metadata to the device D:\x.bak" names a device (stripe).</summary>
internal sealed record BackupDeviceNamed(int Stream, string Path) : TraceMessage;

/// <summary>"Zeroing D:\x_log.ldf from page 1 to 64000 (0x2000 to 0x1f400000)".</summary>
internal sealed record ZeroingStarted(string Path, long FromPage, long ToPage) : TraceMessage;

/// <summary>"Zeroing completed on D:\x_log.ldf".</summary>
internal sealed record ZeroingCompleted(string Path) : TraceMessage;

/// <summary>A step that opens or closes a phase ("Writing a checkpoint", "Restore: LogZero complete").</summary>
internal sealed record PhaseMarker(OperationPhase Phase, PhaseEdge Edge) : TraceMessage;

/// <summary>"BACKUP DATABASE successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec)."</summary>
public sealed record CompletionSummary(
    OperationKind Kind,
    OperationScope Scope,
    long Pages,
    double Seconds,
    double MegabytesPerSecond) : TraceMessage
{
    /// <summary>Pages are 8 KB.</summary>
    public long Bytes => ServerRanges.SaturatingMultiply(Pages, 8192);
}

/// <summary>
/// A completion line whose head a published excerpt cut with "...": "... in 1.414 seconds (134.067 MB/sec)" or
/// "... 24266 pages in 0.694 seconds (273.156 MB/sec)." (real-world S04, S05). The engine's seconds and rate are exact;
/// the operation's kind, scope and database were cut with the head, so it is a timed run, never an operation.
/// </summary>
/// <param name="Pages">The pages, when the excerpt kept them; null when they were cut too.</param>
public sealed record ElidedCompletion(long? Pages, double Seconds, double MegabytesPerSecond) : TraceMessage;

/// <summary>
/// "Database backed up. Database: X, ... number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'D:\x.bak'})."
/// and its "Log was backed up." / "Database was restored:" siblings.
/// </summary>
public sealed record HistoryRecord(
    OperationKind Kind,
    OperationScope Scope,
    string Database,
    long? PagesDumped,
    int? DeviceCount,
    IReadOnlyList<string> Devices) : TraceMessage;

/// <summary>A known step with nothing to measure ("Opening the backup media set"): recognised, kept as text.</summary>
internal sealed record KnownStep(string Text) : TraceMessage;

/// <summary>
/// A known message carrying a number SQL Server cannot write (see <see cref="ServerRanges"/>): damage, reported
/// where it was read and dropped, never analysed.
/// </summary>
public sealed record ImplausibleValue(string Reason) : TraceMessage
{
    /// <summary>
    /// Set when the damaged message is a completion line ("BACKUP DATABASE successfully processed ..."): its figures
    /// are lost, but it still ends an operation of this kind, so the lines after it are not taken for this one's.
    /// </summary>
    public OperationKind? Completes { get; init; }

    /// <summary>The scope the completion line names, with <see cref="Completes"/>.</summary>
    public OperationScope? CompletedScope { get; init; }
}

/// <summary>A message not in the vocabulary: counted and available in verbose output, never an error.</summary>
public sealed record UnknownMessage(string Text) : TraceMessage;

/// <summary>A parsed message with the "Backup(db): " prefix it carried, if any.</summary>
/// <remarks>
/// A value, not an object: every message of a file source is parsed and carries one, and as a class it was one
/// more allocation per ERRORLOG line (docs/performance.md, "Choices in the code and the figures behind them").
/// </remarks>
/// <param name="PrefixDatabase">The database named in the ERRORLOG "Backup(db): " prefix; null when absent.</param>
public readonly record struct ParsedTraceMessage(string? PrefixDatabase, TraceMessage Message);
