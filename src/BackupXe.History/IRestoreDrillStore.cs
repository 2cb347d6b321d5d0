using BackupXe.Core.Drill;

namespace BackupXe.History;

/// <summary>Where restore drills are kept: the SQLite history's restore_drills, or the central repository's dbo.restore_drills.</summary>
public interface IRestoreDrillStore
{
    /// <summary>Stores <paramref name="drill"/>; false when the same drill (instance, database, start) is already there.</summary>
    /// <exception cref="HistoryStoreException">The store cannot take it.</exception>
    Task<bool> SaveAsync(StoredDrill drill, CancellationToken cancellationToken);

    /// <summary>The latest completed drill of a database on an instance (null: any), or null when there is none.</summary>
    Task<StoredDrill?> LatestAsync(string? instance, string database, CancellationToken cancellationToken);
}
