using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.History;

/// <summary>The lease statements through the real driver against the double's lease table (ScriptedLeaseTable), on the store's fake clock.</summary>
public sealed class SqlServerInstanceLeasesTests
{
    private static readonly TimeSpan Lease = TimeSpan.FromSeconds(90);

    public SqlServerInstanceLeasesTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    private static SqlServerInstanceLeases Leases(TdsServerDouble store, string holder)
        => new(new SqlConnectionFactory(TdsClient.Settings(store)), holder, Lease, new TransientRetry(attempts: 1));

    [Fact]
    public async Task A_lease_is_the_first_takers_until_it_expires_on_the_stores_clock_and_renewing_moves_its_end()
    {
        var clock = new FakeClock(new DateTimeOffset(2026, 11, 20, 6, 0, 0, TimeSpan.Zero));
        var table = new ScriptedLeaseTable(clock);
        await using var store = TdsServerDouble.Start(table.Serve(new TdsScript()));
        var a = Leases(store, "daemon-a");
        var b = Leases(store, "daemon-b");
        var start = clock.GetUtcNow().UtcDateTime;

        var first = await a.TakeAsync("prod", CancellationToken.None);
        var refused = await b.TakeAsync("prod", CancellationToken.None);
        clock.Advance(TimeSpan.FromSeconds(60));
        var renewed = await a.TakeAsync("prod", CancellationToken.None);
        clock.Advance(TimeSpan.FromSeconds(89));
        var stillRefused = await b.TakeAsync("prod", CancellationToken.None);
        clock.Advance(TimeSpan.FromSeconds(1));
        var taken = await b.TakeAsync("prod", CancellationToken.None);
        var lost = await a.TakeAsync("prod", CancellationToken.None);

        Assert.Equal(new InstanceLease(true, "daemon-a", start + Lease), first);
        Assert.Equal(new InstanceLease(false, "daemon-a", start + Lease), refused);
        Assert.Equal(new InstanceLease(true, "daemon-a", start.AddSeconds(60) + Lease), renewed);
        Assert.False(stillRefused.Held);
        Assert.Equal(new InstanceLease(true, "daemon-b", start.AddSeconds(150) + Lease), taken);
        Assert.Equal(new InstanceLease(false, "daemon-b", start.AddSeconds(150) + Lease), lost);
    }

    [Fact]
    public async Task A_released_lease_is_taken_at_once_and_a_release_by_another_holder_changes_nothing()
    {
        var clock = new FakeClock(new DateTimeOffset(2026, 11, 20, 6, 0, 0, TimeSpan.Zero));
        var table = new ScriptedLeaseTable(clock);
        await using var store = TdsServerDouble.Start(table.Serve(new TdsScript()));
        var a = Leases(store, "daemon-a");
        var b = Leases(store, "daemon-b");

        await a.TakeAsync("prod", CancellationToken.None);
        await b.ReleaseAsync("prod", CancellationToken.None);
        var stillA = await b.TakeAsync("prod", CancellationToken.None);
        await a.ReleaseAsync("prod", CancellationToken.None);
        var nowB = await b.TakeAsync("prod", CancellationToken.None);

        Assert.False(stillA.Held);
        Assert.True(nowB.Held);
        Assert.Equal("daemon-b", table.Row("prod")!.Value.Holder);
    }

    [Fact]
    public async Task A_store_whose_script_predates_the_lease_table_says_so()
    {
        var none = new TdsResultSet(TdsColumn.Int("held"), TdsColumn.NVarChar("holder", 256), TdsColumn.DateTime2("expires_at")).Row(-1, null, null);
        await using var store = TdsServerDouble.Start(new TdsScript().On(ScriptedLeaseTable.Fragment, TdsResponse.Of(none)));

        var lease = await Leases(store, "daemon-a").TakeAsync("prod", CancellationToken.None);

        Assert.Equal(new InstanceLease(false, null, null, Unsupported: true), lease);
    }
}
