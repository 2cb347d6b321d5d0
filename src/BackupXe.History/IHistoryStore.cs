using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;

namespace BackupXe.History;

/// <summary>Completed operations kept across restarts, for regression baselines and the CLI's history command.</summary>
public interface IHistoryStore
{
    /// <summary>Creates the schema if it is missing; safe to call on every start.</summary>
    /// <exception cref="HistoryStoreException">The store cannot be opened or created.</exception>
    Task InitializeAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Stores the operation unless the same one (instance, database, kind, start, session id) is already
    /// there, so that re-reading a source after a restart duplicates nothing.
    /// </summary>
    Task<HistoryWrite> SaveAsync(string instance, OperationReport report, CancellationToken cancellationToken);

    /// <summary>The most recent completed operations of the series with a known throughput that started before <paramref name="before"/>, newest first.</summary>
    Task<IReadOnlyList<StoredOperation>> RecentCompletedAsync(
        OperationSeries series, DateTime before, int count, CancellationToken cancellationToken);

    /// <summary>Operations matching the query, newest first.</summary>
    Task<IReadOnlyList<StoredOperation>> QueryAsync(HistoryQuery query, CancellationToken cancellationToken);

    /// <summary>Stores a tune's result; false when the same tune (instance, database, time) is already there.</summary>
    Task<bool> SaveTuneAsync(TuneRecord record, CancellationToken cancellationToken);

    /// <summary>
    /// The latest tune of <paramref name="database"/> on <paramref name="instance"/> that finished before
    /// <paramref name="before"/> (UTC), or null; a store from before tune runs were kept has none.
    /// </summary>
    Task<TuneRecord?> LastTuneAsync(string instance, string database, DateTime before, CancellationToken cancellationToken);
}

/// <summary>What storing an operation in the history did.</summary>
public enum HistoryWrite
{
    Added,

    /// <summary>The same operation was stored before (a restart re-read its source).</summary>
    AlreadyStored,

    /// <summary>No start time: nothing tells this operation apart from another, so it is not stored.</summary>
    NoIdentity,
}

/// <summary>Operations that are comparable with each other: same instance, database, kind and scope.</summary>
public sealed record OperationSeries(string Instance, string? Database, OperationKind Kind, OperationScope? Scope)
{
    public static OperationSeries Of(string instance, OperationReport report)
        => new(instance, report.Database, report.Kind, report.Scope);
}

/// <summary>One row of history: the full report as it was when the operation completed.</summary>
public sealed record StoredOperation(string Instance, OperationReport Report);

/// <summary>What the CLI's history command asks for; null filters match everything.</summary>
public sealed record HistoryQuery(string? Instance = null, string? Database = null, OperationKind? Kind = null, int Limit = 50)
{
    /// <summary>Any of these databases, compared without case as SQL Server compares names by default; null for all.</summary>
    public IReadOnlyList<string>? Databases { get; init; }

    /// <summary>Operations that started at or after this, in the time the history stores (the input's own).</summary>
    public DateTime? Since { get; init; }

    /// <summary>Operations that started at or before this.</summary>
    public DateTime? Until { get; init; }
}

/// <summary>Rows read for the CLI, with the ones that could not be read named (<c>row id 12: ...</c>).</summary>
public sealed record HistoryRead(IReadOnlyList<StoredOperation> Operations, IReadOnlyList<string> Problems);

/// <summary>
/// The history store is unusable (bad path, no permission, not a database file, damaged): retrying cannot help, so
/// the daemon stops with exit code 3 and the CLI names the file once.
/// </summary>
public sealed class HistoryStoreException(string message, Exception? inner = null) : Exception(message, inner)
{
    /// <summary>
    /// True for the SQLite results that say the file itself is unusable (damaged, not a database, read-only), as
    /// opposed to a busy lock or a full disk, which a later attempt may get past.
    /// </summary>
    public static bool FileUnusable(Microsoft.Data.Sqlite.SqliteException exception)
        => (exception.SqliteErrorCode & 0xFF) is SqliteCorrupt or SqliteNotADatabase or SqliteReadOnly;

    /// <summary>The message for a history file found unusable while it was in use.</summary>
    public static HistoryStoreException Damaged(string path, Microsoft.Data.Sqlite.SqliteException exception)
        => new($"The history file '{path}' cannot be used: {exception.Message} It was left as it is; restore it from a copy or move it aside.", exception);

    private const int SqliteReadOnly = 8;
    private const int SqliteCorrupt = 11;
    private const int SqliteNotADatabase = 26;
}
