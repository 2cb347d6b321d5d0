using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.History;

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
}

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

/// <summary>The history store is unusable (bad path, no permission, not a database file).</summary>
public sealed class HistoryStoreException(string message, Exception? inner = null) : Exception(message, inner);
