using BackupXe.Core.History;

namespace BackupXe.History;

/// <summary>
/// Where imported history (msdb, CommandLog, job output) is merged with the captured operations: the SQLite history
/// file or the central SQL Server store. Both merge with <see cref="HistoryMerge"/>, so one history gives one page.
/// </summary>
public interface IImportedHistory
{
    /// <summary>Makes the store ready for imports, or says which script or file to mend.</summary>
    /// <exception cref="HistoryStoreException">The store cannot be used for imports.</exception>
    Task InitializeAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Stores each record, merged into the stored operation it matches when there is one; importing the same records
    /// again changes nothing. <paramref name="added"/>, when given, receives the records stored as new rows.
    /// </summary>
    /// <exception cref="HistoryStoreException">The store cannot be written.</exception>
    Task<HistoryImportResult> ImportAsync(
        string instance, IEnumerable<HistoryOperation> records, CancellationToken cancellationToken, ICollection<HistoryOperation>? added = null);

    /// <summary>Every stored operation of <paramref name="instance"/> and <paramref name="database"/> (all when null), matching ones folded together.</summary>
    /// <exception cref="HistoryStoreException">The store cannot be read.</exception>
    Task<IReadOnlyList<InstanceOperation>> ReadAsync(string? instance, string? database, CancellationToken cancellationToken);
}
