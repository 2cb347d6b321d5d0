using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Monitoring;
using Microsoft.Extensions.Logging;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker.Monitoring;

/// <summary>
/// Two daemons (in process) sharing one central store through the real driver: each daemon's connections reach its own
/// TDS double, both doubles serve one lease table (ScriptedLeaseTable, the store's clock a fake one shared with the
/// daemons). Daemon A watches i1, i2 and i3, daemon B i2, i3 and i4: no instance is ever polled by both, and B takes over
/// A's instances when A stops (at its next try) or dies (once the lease has expired on the store's clock).
/// </summary>
public sealed class LeasedInstanceRunTests : IAsyncDisposable
{
    private static readonly TimeSpan Lease = TimeSpan.FromSeconds(90);

    private readonly FakeClock _clock = new(new DateTimeOffset(2026, 11, 20, 6, 0, 0, TimeSpan.Zero));
    private readonly ScriptedLeaseTable _table;
    private readonly TdsServerDouble _storeA;
    private readonly TdsServerDouble _storeB;
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;

    // Who polls each instance now, and every moment two daemons polled one instance at once.
    private readonly Dictionary<string, string> _polling = new(StringComparer.Ordinal);
    private readonly List<string> _overlaps = [];

    // Daemon a's link to the store is cut: the store drops each of its statements.
    private volatile bool _aCutOff;

    public LeasedInstanceRunTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        _table = new ScriptedLeaseTable(_clock);
        _storeA = TdsServerDouble.Start(_table.Serve(new TdsScript()).On(_ => _aCutOff, _ => TdsResponse.Empty.Disconnect()));
        _storeB = TdsServerDouble.Start(_table.Serve(new TdsScript()));
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
    }

    public async ValueTask DisposeAsync()
    {
        await _storeA.DisposeAsync();

        await _storeB.DisposeAsync();
        _loggers.Dispose();
    }

    /// <summary>A monitor's run: polls until stopped, noting who polls.</summary>
    private async Task PollAsync(string daemon, string instance, CancellationToken stop)
    {
        lock (_polling)
        {
            if (_polling.TryGetValue(instance, out var other))
            {
                _overlaps.Add($"{instance}: {daemon} while {other}");
            }

            _polling[instance] = daemon;
        }

        try
        {
            await Task.Delay(Timeout.Infinite, stop);
        }
        finally
        {
            lock (_polling)
            {
                if (_polling.GetValueOrDefault(instance) == daemon)
                {
                    _polling.Remove(instance);
                }
            }
        }
    }

    private Task Daemon(string name, TdsServerDouble store, string[] instances, CancellationToken stop)
    {
        // One attempt per statement: a retry would wait on its own back-off, and the test drives every wait.
        var leases = new SqlServerInstanceLeases(new SqlConnectionFactory(TdsClient.Settings(store)), $"daemon-{name}", Lease, new TransientRetry(attempts: 1));
        return Task.WhenAll(instances.Select(instance =>
            new LeasedInstanceRun(instance, leases, stop => PollAsync(name, instance, stop), _clock, _loggers.CreateLogger<LeasedInstanceRun>()).RunAsync(stop)));
    }

    private string Polls()
    {
        lock (_polling)
        {
            return string.Join(", ", _polling.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key}={p.Value}"));
        }
    }

    /// <summary>
    /// Once the <paramref name="timers"/> running daemons' instances wait for their next try, moves both daemons' and the
    /// store's clock on by a renewal period and waits for the <paramref name="tries"/> that reach the lease table.
    /// </summary>
    private async Task RenewalPeriodAsync(int tries, int timers)
    {
        // A try counted by the table may not have scheduled its next wait yet; a wait scheduled after the move would miss it.
        await Eventually.TrueAsync(() => _clock.PendingTimers >= timers, $"{timers} instances waiting for their next try");
        var before = _table.Takes;
        _clock.Advance(Lease / 3);
        await Eventually.TrueAsync(() => _table.Takes >= before + tries, $"{tries} lease tries after {_clock.GetUtcNow():HH:mm:ss}");
    }

    private async Task<(CancellationTokenSource StopA, Task A, CancellationTokenSource StopB, Task B)> StartBothAsync()
    {
        var stopA = new CancellationTokenSource();
        var a = Daemon("a", _storeA, ["i1", "i2", "i3"], stopA.Token);
        await Eventually.TrueAsync(() => Polls() == "i1=a, i2=a, i3=a", "daemon a polling its three instances");
        var stopB = new CancellationTokenSource();
        var b = Daemon("b", _storeB, ["i2", "i3", "i4"], stopB.Token);
        await Eventually.TrueAsync(() => Polls() == "i1=a, i2=a, i3=a, i4=b", "daemon b polling i4 alone");
        return (stopA, a, stopB, b);
    }

    [Fact]
    public async Task Two_daemons_split_the_instances_without_overlap_and_renewals_keep_them_where_they_are()
    {
        var (stopA, a, stopB, b) = await StartBothAsync();

        // Three renewal periods: a renews its three and b its one, b tries i2 and i3 again each time and is refused
        for (var period = 0; period < 3; period++)
        {
            await RenewalPeriodAsync(tries: 6, timers: 6);
            Assert.Equal("i1=a, i2=a, i3=a, i4=b", Polls());
        }

        Assert.Empty(_overlaps);
        Assert.Equal("daemon-a", _table.Row("i2")!.Value.Holder);
        Assert.Equal(_clock.GetUtcNow().UtcDateTime + Lease, _table.Row("i2")!.Value.ExpiresAt);
        await stopA.CancelAsync();
        await stopB.CancelAsync();
        await Task.WhenAll(a, b);
    }

    [Fact]
    public async Task A_daemon_that_stops_gives_its_leases_up_and_the_other_takes_them_at_its_next_try()
    {
        var (stopA, a, stopB, b) = await StartBothAsync();

        await stopA.CancelAsync();
        await a;
        Assert.Equal(_clock.GetUtcNow().UtcDateTime, _table.Row("i2")!.Value.ExpiresAt);
        await RenewalPeriodAsync(tries: 3, timers: 3);

        await Eventually.TrueAsync(() => Polls() == "i2=b, i3=b, i4=b", "daemon b polling i2, i3 and i4");
        Assert.Empty(_overlaps);
        Assert.Equal(2, _log.WithEventId(197).Count(e => (string)e.Scalar("Holder")! == "daemon-b" && (string)e.Scalar("Instance")! != "i4"));
        await stopB.CancelAsync();
        await b;
    }

    [Fact]
    public async Task A_daemon_that_dies_leaves_its_leases_to_expire_on_the_stores_clock_before_the_other_takes_them()
    {
        var (stopA, a, stopB, b) = await StartBothAsync();
        var taken = _clock.GetUtcNow().UtcDateTime;

        // a loses the store (its connections fail: no renewal, no release) and its process goes
        _aCutOff = true;
        await stopA.CancelAsync();
        await a;

        // Two periods: the leases a took at the start still run (90 s), b is refused
        await RenewalPeriodAsync(tries: 3, timers: 3);
        await RenewalPeriodAsync(tries: 3, timers: 3);
        Assert.Equal("i4=b", Polls());

        // The third: 90 s after a last renewed them, b takes them
        await RenewalPeriodAsync(tries: 3, timers: 3);
        await Eventually.TrueAsync(() => Polls() == "i2=b, i3=b, i4=b", "daemon b polling i2, i3 and i4");
        Assert.Equal(taken + Lease, _clock.GetUtcNow().UtcDateTime);
        Assert.Empty(_overlaps);
        await stopB.CancelAsync();
        await b;
    }

    [Fact]
    public async Task A_daemon_cut_off_from_the_store_stops_polling_before_its_leases_can_expire()
    {
        var (stopA, a, stopB, b) = await StartBothAsync();

        // a runs on but can no longer reach the store: its renewals fail
        _aCutOff = true;
        await RenewalPeriodAsync(tries: 3, timers: 6);
        Assert.Equal("i1=a, i2=a, i3=a, i4=b", Polls());

        // 60 s without a renewal: a stops polling, 30 s before its leases could be taken
        await RenewalPeriodAsync(tries: 3, timers: 6);
        await Eventually.TrueAsync(() => Polls() == "i4=b", "daemon a stopping its polls");
        Assert.Equal(3, _log.WithEventId(198).Count);

        // 90 s: b takes i2 and i3; i1, a's alone, stays unpolled until a reaches the store again
        await RenewalPeriodAsync(tries: 3, timers: 6);
        await Eventually.TrueAsync(() => Polls() == "i2=b, i3=b, i4=b", "daemon b polling i2, i3 and i4");
        Assert.Empty(_overlaps);
        await stopA.CancelAsync();
        await stopB.CancelAsync();
        await Task.WhenAll(a, b);
    }
}
