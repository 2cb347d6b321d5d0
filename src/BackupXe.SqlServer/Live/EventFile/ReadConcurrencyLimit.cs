namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// How many reads of the watched servers one daemon runs at once, over all its instances. Each read opens (or takes
/// from the pool) a connection, runs one query and hands its rows on; the rest wait here, in order, before they touch
/// the network. Without the bound, 1,000 instances polling together put 1,000 logins and reads in flight on
/// the driver's managed network layer, whose async I/O needs thread-pool threads it cannot get fast enough on
/// Linux (dotnet/SqlClient#3118, #422): logins then time out in the pre-login handshake, instances reconnect,
/// and the daemon falls further behind (docs/performance.md, "Live: one daemon, many instances").
/// </summary>
public sealed class ReadConcurrencyLimit : IDisposable
{
    private readonly SemaphoreSlim _slots;

    public ReadConcurrencyLimit(int maxConcurrentReads)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxConcurrentReads, 1);
        MaxConcurrentReads = maxConcurrentReads;
        _slots = new SemaphoreSlim(maxConcurrentReads, maxConcurrentReads);
    }

    public int MaxConcurrentReads { get; }

    /// <summary>Reads running now (for tests and metrics).</summary>
    public int InUse => MaxConcurrentReads - _slots.CurrentCount;

    /// <summary>Waits for a slot; disposing the lease gives it back.</summary>
    public async Task<Lease> EnterAsync(CancellationToken cancellationToken)
    {
        await _slots.WaitAsync(cancellationToken).ConfigureAwait(false);
        return new Lease(_slots);
    }

    /// <summary>Runs <paramref name="read"/> in a slot.</summary>
    public async Task<T> RunAsync<T>(Func<CancellationToken, Task<T>> read, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(read);
        using var lease = await EnterAsync(cancellationToken).ConfigureAwait(false);
        return await read(cancellationToken).ConfigureAwait(false);
    }

    public void Dispose() => _slots.Dispose();

    /// <summary>One slot, given back once.</summary>
    public sealed class Lease(SemaphoreSlim slots) : IDisposable
    {
        private SemaphoreSlim? _slots = slots;

        public void Dispose() => Interlocked.Exchange(ref _slots, null)?.Release();
    }
}
