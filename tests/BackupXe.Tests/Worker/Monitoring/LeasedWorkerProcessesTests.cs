using System.Diagnostics;
using System.Globalization;
using BackupXe.History;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.Worker.Monitoring;

/// <summary>
/// Two real worker processes (<c>dotnet BackupXe.Worker.dll</c>) whose history is one central store: a TDS double in this
/// process serving the lease table (ScriptedLeaseTable, the system clock as the store's SYSUTCDATETIME()) on loopback.
/// Worker a lists i1, i2 and i3, worker b i2, i3 and i4, each instance a TDS double of its own. Who polls an instance
/// is read from that instance's double: the client process id of each login. The leases last 4 s
/// (History:LeaseSeconds), so the survivor takes over within seconds of a SIGKILL.
/// </summary>
// Real time cannot be faked across processes: the store's clock and the workers' lease timers are the system's. Every
// wait below is on observable state (the table's rows, the doubles' logins) with a generous deadline, none a fixed sleep.
[Collection(Cli.ConsoleCollection.Name)]
public sealed class LeasedWorkerProcessesTests(ITestOutputHelper output) : IAsyncDisposable
{
    private const int LeaseSeconds = 4;
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(45);

    private readonly ScriptedLeaseTable _table = new(TimeProvider.System);
    private readonly List<TdsServerDouble> _doubles = [];
    private readonly List<string> _folders = [];

    public async ValueTask DisposeAsync()
    {
        foreach (var server in _doubles)
        {
            await server.DisposeAsync();
        }

        foreach (var folder in _folders)
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public async Task Two_worker_processes_split_the_instances_without_overlap_and_the_survivor_takes_over_when_one_is_killed()
    {
        // Given the central store and four monitored instances
        var store = Double(_table.Serve(new TdsScript()).On(SqlServerHistoryStore.TableQuery, TdsResponse.Of(new TdsResultSet(TdsColumn.Int("exists")).Row(1))));
        var instances = new Dictionary<string, TdsServerDouble>(StringComparer.Ordinal);
        foreach (var name in new[] { "i1", "i2", "i3", "i4" })
        {
            var file = ScriptedEventFile.Of([.. ScriptedEventFile.BufferStarvedBackup().Take(10)], 37, 50);
            file.WrittenSoFar(0);
            instances[name] = Double(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script.Serve(file));
        }

        var clock = Stopwatch.StartNew();

        // When both workers start together
        using var a = Start(store, instances, ["i1", "i2", "i3"]);
        using var b = Start(store, instances, ["i2", "i3", "i4"]);

        // Then every instance is leased to one of them, and polled by that one alone
        await UntilAsync(() => Holders().Count == 4 && PollersOf(instances["i4"]).Count > 0 && instances.Values.All(i => PollersOf(i).Count > 0), "every instance leased and polled", a, b);
        var split = Holders();
        Assert.Equal(a.Id, split["i1"]);
        Assert.Equal(b.Id, split["i4"]);
        foreach (var (name, server) in instances)
        {
            Assert.Equal([split[name]], PollersOf(server));
        }

        // When the holder of i2 is killed (SIGKILL: no release, its leases left to expire)
        var (killed, survivor) = split["i2"] == a.Id ? (a, b) : (b, a);
        var shared = new[] { "i2", "i3" }.Where(name => split[name] == killed.Id).ToArray();
        var loginsAtKill = instances.ToDictionary(i => i.Key, i => i.Value.Logins.Count, StringComparer.Ordinal);
        // Taken before the kill: a slow exit under load must not shorten the measured time to the take-over.
        var killedAt = clock.Elapsed;
        killed.Kill();
        await killed.WaitForExitAsync(TimeSpan.FromSeconds(10));

        // Then the survivor takes the shared instances the killed one held once their leases expire, and polls them
        await UntilAsync(() => shared.All(name => Holders().GetValueOrDefault(name) == survivor.Id
            && instances[name].Logins.Skip(loginsAtKill[name]).Any(l => l.ClientProcessId == survivor.Id)), "the survivor polling " + string.Join(", ", shared), survivor);
        var takenOver = clock.Elapsed - killedAt;
        output.WriteLine($"split {string.Join(", ", split.Select(s => $"{s.Key}={(s.Value == a.Id ? "a" : "b")}"))}; killed {(killed == a ? "a" : "b")};"
            + $" taken over {takenOver.TotalSeconds:F1} s after the kill; {clock.Elapsed.TotalSeconds:F1} s in all");
        foreach (var name in shared)
        {
            // Before the kill only the killed worker polled it, after it only the survivor: never both at once.
            Assert.All(instances[name].Logins.Take(loginsAtKill[name]), l => Assert.Equal(killed.Id, l.ClientProcessId));
            Assert.All(instances[name].Logins.Skip(loginsAtKill[name]), l => Assert.Equal(survivor.Id, l.ClientProcessId));
        }

        // A lease held by a dead process is taken only once it has expired on the store's clock.
        Assert.True(takenOver >= TimeSpan.FromSeconds(LeaseSeconds) - TimeSpan.FromSeconds(LeaseSeconds / 3.0),
            $"taken over {takenOver.TotalSeconds:F1} s after the kill, before a {LeaseSeconds} s lease renewed every third of it could expire");
        Assert.True(survivor is { HasExited: false }, survivor.Output);
        Assert.DoesNotContain("   at ", survivor.Output, StringComparison.Ordinal);
    }

    private TdsServerDouble Double(TdsScript script)
    {
        var server = TdsServerDouble.Start(script);
        _doubles.Add(server);
        return server;
    }

    /// <summary>The worker process holding each instance's lease now, from the holder's name (random part @ host / process id).</summary>
    private Dictionary<string, int> Holders()
    {
        var holders = new Dictionary<string, int>(StringComparer.Ordinal);
        var now = DateTime.UtcNow;
        foreach (var name in new[] { "i1", "i2", "i3", "i4" })
        {
            if (_table.Row(name) is { } row && row.ExpiresAt > now)
            {
                holders[name] = int.Parse(row.Holder[(row.Holder.LastIndexOf('/') + 1)..], CultureInfo.InvariantCulture);
            }
        }

        return holders;
    }

    /// <summary>The worker processes that have logged in to an instance (the driver's LOGIN7 names its process).</summary>
    private static List<int> PollersOf(TdsServerDouble instance) => [.. instance.Logins.Select(l => l.ClientProcessId).Distinct().Order()];

    private WorkerProcess Start(TdsServerDouble store, Dictionary<string, TdsServerDouble> instances, string[] watched)
    {
        var folder = Directory.CreateTempSubdirectory("backupxe-leases-").FullName;
        _folders.Add(folder);
        var environment = new Dictionary<string, string>
        {
            ["BackupXe__History__Provider"] = "sqlserver",
            // test-only: the double speaks no TLS
            ["BackupXe__History__ConnectionString"] = $"Server={store.Server};User ID={TdsClient.User};Password={TdsClient.Password};Encrypt=False;Connect Timeout=5",
            ["BackupXe__History__LeaseSeconds"] = LeaseSeconds.ToString(CultureInfo.InvariantCulture),
            ["BackupXe__RetryDelaySeconds"] = "0.2",
            ["Serilog__MinimumLevel__Default"] = "Information",
            ["Serilog__WriteTo__0__Name"] = "Console",
        };
        for (var index = 0; index < watched.Length; index++)
        {
            var prefix = $"BackupXe__Instances__{index}__";
            environment[prefix + "Name"] = watched[index];
            environment[prefix + "Server"] = instances[watched[index]].Server;
            environment[prefix + "UserName"] = TdsClient.User;
            environment[prefix + "Password"] = TdsClient.Password;
            environment[prefix + "Encrypt"] = "false"; // test-only: the double speaks no TLS
            environment[prefix + "PollIntervalSeconds"] = "0.2";
        }

        return WorkerProcess.Start(folder, environment);
    }

    private static async Task UntilAsync(Func<bool> condition, string what, params WorkerProcess[] workers)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (workers.FirstOrDefault(w => w.HasExited) is { } exited)
            {
                Assert.Fail($"a worker exited while waiting for {what}:\n{exited.Output}");
            }

            if (clock.Elapsed > Deadline)
            {
                Assert.Fail($"{Deadline.TotalSeconds:F0} s without {what}:\n{string.Join("\n---\n", workers.Select(w => w.Output))}");
            }

            await Task.Delay(50);
        }
    }
}
