using BackupXe.Core.Events;

namespace BackupXe.Core.Baselines;

/// <summary>
/// Where <see cref="BaselineEta"/> finds a running operation's usual pace: a history read whole (<see cref="BaselineContext"/>,
/// <c>watch --history</c>) or the daemon's store, which answers asynchronously.
/// </summary>
public interface IUsualPaces
{
    /// <summary>The usual pace of the running operation's series; null when the history has too few usual runs of it.</summary>
    Task<UsualPace?> PaceAsync(OperationKind kind, OperationScope? scope, string? database, DateTime start, IReadOnlyList<string> devices);
}
