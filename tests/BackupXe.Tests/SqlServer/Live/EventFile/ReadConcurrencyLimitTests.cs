using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live.EventFile;

/// <summary>
/// The daemon-wide bound on reads in flight, through the real driver: several instances, each its own TDS double, whose
/// event_file reads take a while on the server side; every double counts the sessions reading at that moment.
/// </summary>
public sealed class ReadConcurrencyLimitTests
{
    private const int Instances = 8;

    /// <summary>Sessions inside a read query right now, over all the doubles, and the most seen at once.</summary>
    private sealed class ConcurrentReads
    {
        private readonly Lock _gate = new();
        private int _now;
        private int _total;

        public int Most { get; private set; }

        public int Total
        {
            get
            {
                lock (_gate)
                {
                    return _total;
                }
            }
        }

        public void Read()
        {
            lock (_gate)
            {
                _now++;
                _total++;
                Most = Math.Max(Most, _now);
            }

            // The server's side of a read that takes a while (a large file, a busy server): long enough for the
            // reads of other instances to overlap it unless something holds them back.
            Thread.Sleep(60);
            lock (_gate)
            {
                _now--;
            }
        }
    }

    private static async Task<(int Most, int Total, long Events)> PollAllAsync(ReadConcurrencyLimit? limit)
    {
        var reads = new ConcurrentReads();
        var capture = ScriptedEventFile.BufferStarvedBackup().Take(50).ToList();
        var servers = new List<TdsServerDouble>();
        try
        {
            for (var i = 0; i < Instances; i++)
            {
                var file = ScriptedEventFile.Of(capture, 37, 40);
                var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
                servers.Add(TdsServerDouble.Start(sql.Script.Serve(file, whileReading: reads.Read)));
            }

            var options = new EventFileTailOptions { PollInterval = TimeSpan.FromMilliseconds(20), SessionCheckEveryEmptyReads = 0 };
            // The window closes once every instance has handed on its events and been read twice, or after 30 s: a
            // fixed few seconds measured the machine's load (eight logins through the driver) more than the bound.
            using var window = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            long events = 0;
            var enough = Task.Run(async () =>
            {
                while (!window.IsCancellationRequested)
                {
                    if (Interlocked.Read(ref events) >= Instances * 50 && reads.Total >= Instances * 2)
                    {
                        await window.CancelAsync();
                        return;
                    }

                    await Task.Delay(20);
                }
            });
            var polling = servers.Select((server, i) => Task.Run(async () =>
            {
                var source = new EventFileLiveSource(
                    $"sim-{i}", new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), false, options,
                    new NoCheckpoints(), TimeSpan.Zero, readLimit: limit);
                try
                {
                    await foreach (var _ in source.ReadEventsAsync(new SourceStatus(), window.Token))
                    {
                        Interlocked.Increment(ref events);
                    }
                }
                catch (OperationCanceledException)
                {
                    // The window closed.
                }
            })).ToList();
            await Task.WhenAll(polling);
            await enough;
            return (reads.Most, reads.Total, events);
        }
        finally
        {
            foreach (var server in servers)
            {
                await server.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task No_more_instances_read_at_once_than_the_limit_allows()
    {
        // Given eight instances sharing a limit of two reads
        using var limit = new ReadConcurrencyLimit(2);

        // When they poll until each has been read (at most 30 s)
        var (most, total, events) = await PollAllAsync(limit);

        // Then never more than two reads ran at once, every instance was read, and no slot was left taken
        Assert.InRange(most, 1, 2);
        Assert.True(total >= Instances * 2, $"only {total} reads in 30 s");
        Assert.True(events >= Instances * 50, $"only {events} events handed on");
        Assert.Equal(0, limit.InUse);
    }

    [Fact]
    public async Task Without_the_limit_the_same_instances_overlap_their_reads()
    {
        // Given the same eight instances with no limit (what the test above would see if the bound did nothing)
        // When
        var (most, _, _) = await PollAllAsync(limit: null);

        // Then
        Assert.True(most > 2, $"at most {most} reads at once");
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void A_limit_below_one_is_refused(int reads)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new ReadConcurrencyLimit(reads));
    }

    private sealed class NoCheckpoints : IEventFileCheckpointStore
    {
        public Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken) => Task.FromResult<EventFileCheckpoint?>(null);

        public Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
