using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// The one retry of a unit of work against a server (open, query, close) that is not itself a reconnecting read: the
/// first connection of a live source (server facts, install, session status), <c>watch</c>'s first read of the running
/// requests, each write and read of the central history store. A failure the <see cref="SqlFailureClassifier"/> calls
/// transient, or a driver fault, is tried again after the live sources' back-off (<see cref="ReconnectBackoff"/>),
/// waited on <paramref name="time"/>, each wait announced as a <see cref="LiveSourceChange.Retrying"/> line; any other
/// failure, and the last one, is thrown as it came.
/// </summary>
/// <param name="attempts">How many times the work runs at most (1 = no retry).</param>
/// <param name="observer">Told of each retry ("retrying (n) after error N"): the console line of watch, the daemon's log.</param>
/// <param name="random">Jitter source; tests pass a fixed one.</param>
public sealed class TransientRetry(
    int attempts = TransientRetry.DefaultAttempts,
    LiveSourceOptions? backoff = null,
    ILiveSourceObserver? observer = null,
    TimeProvider? time = null,
    Random? random = null)
{
    /// <summary>
    /// Five runs over the default back-off (1, 2, 4 and 8 s, less jitter): about 15 s, longer than Microsoft's pages
    /// give an Azure reconfiguration or a failover of a database to settle before a new login succeeds.
    /// </summary>
    public const int DefaultAttempts = 5;

    private readonly ReconnectBackoff _backoff = new(backoff ?? new LiveSourceOptions(), random);
    private readonly TimeProvider _time = time ?? TimeProvider.System;
    private readonly ILiveSourceObserver? _observer = observer;
    private readonly int _attempts = attempts >= 1 ? attempts : throw new ArgumentOutOfRangeException(nameof(attempts), attempts, "At least one attempt.");

    /// <summary>Runs <paramref name="work"/> until it succeeds, fails for good, or has run the allowed times.</summary>
    public async Task<T> RunAsync<T>(Func<CancellationToken, Task<T>> work, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(work);
        var classifier = new SqlFailureClassifier();
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await work(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception failure) when (attempt < _attempts && !cancellationToken.IsCancellationRequested
                && failure is not OperationCanceledException && IsRetried(classifier, failure))
            {
                var delay = _backoff.DelayFor(attempt);
                Notify(new LiveSourceChange.Retrying(attempt, ErrorNumber(failure), delay, Reason(classifier, failure)));
                await Task.Delay(delay, _time, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>As <see cref="RunAsync{T}(Func{CancellationToken, Task{T}}, CancellationToken)"/> for work without a result.</summary>
    public Task RunAsync(Func<CancellationToken, Task> work, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(work);
        return RunAsync(
            async token =>
            {
                await work(token).ConfigureAwait(false);
                return true;
            },
            cancellationToken);
    }

    /// <summary>The number that made a reply transient: the first SqlClient lists, else the first of the reply.</summary>
    public static int? ErrorNumber(Exception failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        if (failure is SqlException sql)
        {
            var numbers = sql.Errors.Cast<SqlError>().Select(e => e.Number).ToList();
            return numbers.FirstOrDefault(SqlErrorNumbers.IsSqlClientTransient, numbers.Count > 0 ? numbers[0] : sql.Number);
        }

        return failure.InnerException is { } inner ? ErrorNumber(inner) : null;
    }

    private static bool IsRetried(SqlFailureClassifier classifier, Exception failure)
        => classifier.Classify(failure) is LiveFailureKind.Transient or LiveFailureKind.DriverFault;

    private static string Reason(SqlFailureClassifier classifier, Exception failure)
        => classifier.Classify(failure) == LiveFailureKind.DriverFault
            ? SqlFailureText.DriverFault(failure)
            : SqlFailureText.Describe(failure);

    private void Notify(LiveSourceChange change)
    {
        try
        {
            _observer?.OnChange(change);
        }
        catch (Exception)
        {
            // As for the live sources: a failing log sink never stops the work.
        }
    }
}
