using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.RingBuffer;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live;

/// <summary>
/// The first connection of every reader goes through the one retry: the real driver against the TDS double refusing
/// logins as a server does during a failover (4060 with 18456) or an Azure reconfiguration (40540). The waits are the
/// fake clock's.
/// </summary>
public class TransientRetryTests
{
    private static readonly TimeSpan Second = TimeSpan.FromSeconds(1);

    [Fact]
    public async Task A_reply_of_4060_with_18456_is_transient_as_SqlClient_rules_and_18456_alone_stays_fatal()
    {
        // Given a server refusing one login with the pair, and one with a wrong password
        await using var server = TdsServerDouble.Start(new ScriptedSqlServer().Script);
        server.RefuseNextLogins(1, TdsError.CannotOpenDatabase("SalesDB", TdsClient.User));
        var factory = new SqlConnectionFactory(TdsClient.Settings(server));

        // When each is opened through the real driver
        var pair = await Assert.ThrowsAsync<SqlException>(() => factory.OpenAsync(TestContext.Current.CancellationToken));
        server.Credentials = ("someone", "else");
        var refused = await Assert.ThrowsAsync<SqlException>(() => factory.OpenAsync(TestContext.Current.CancellationToken));

        // Then the pair arrives as both errors and is retried; the refusal alone is not
        Assert.Equal([4060, 18456], pair.Errors.Cast<SqlError>().Select(e => e.Number));
        Assert.Equal(LiveFailureKind.Transient, new SqlFailureClassifier().Classify(pair));
        Assert.Equal(4060, TransientRetry.ErrorNumber(pair));
        Assert.DoesNotContain("password", SqlFailureText.Describe(pair), StringComparison.OrdinalIgnoreCase);
        Assert.Equal(LiveFailureKind.Fatal, new SqlFailureClassifier().Classify(refused));
    }

    [Fact]
    public async Task A_first_connection_refused_twice_with_4060_and_18456_is_retried_after_1_and_2_seconds_each_said_and_then_reads()
    {
        // Given a server whose first two logins fail as a database failing over makes them fail
        await using var server = TdsServerDouble.Start(new ScriptedSqlServer().Script);
        server.RefuseNextLogins(2, TdsError.CannotOpenDatabase("master", TdsClient.User));
        var clock = new FakeClock();
        var changes = new RecordingLiveObserver();
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());
        var retry = new TransientRetry(observer: changes, time: clock, backoff: new LiveSourceOptions { JitterRatio = 0 });

        // When the server facts are read through the retry, the clock moving only by the delays asked for
        var facts = retry.RunAsync(client.ReadServerFactsAsync, TestContext.Current.CancellationToken);
        Assert.Equal(Second, await clock.FireNextTimerAsync());
        Assert.Equal(2 * Second, await clock.FireNextTimerAsync());

        // Then the third login read them, and each wait was one line naming the error
        Assert.Equal(15, (await facts).ProductMajorVersion);
        Assert.Equal(3, server.Logins.Count);
        Assert.Equal(
            ["retrying (1) after error 4060 in 1.0 s", "retrying (2) after error 4060 in 2.0 s"],
            changes.Of<LiveSourceChange.Retrying>().Select(r => r.Describe()[..r.Describe().IndexOf(':', StringComparison.Ordinal)]));
    }

    [Fact]
    public async Task A_refused_password_is_not_retried()
    {
        await using var server = TdsServerDouble.Start(new ScriptedSqlServer().Script);
        server.Credentials = ("someone", "else");
        var changes = new RecordingLiveObserver();
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        await Assert.ThrowsAsync<SqlException>(() => new TransientRetry(observer: changes, time: new FakeClock()).RunAsync(client.ReadServerFactsAsync, TestContext.Current.CancellationToken));

        Assert.Single(server.Logins);
        Assert.Empty(changes.Of<LiveSourceChange.Retrying>());
    }

    [Fact]
    public async Task Verbose_backup_trace_is_read_over_ring_buffer_after_40540_on_the_first_two_logins()
    {
        // Given Managed Instance's own session, named as Microsoft's backup-monitoring page names it, and an instance
        // answering its first two logins with 40540 during a reconfiguration
        const string name = "Verbose backup trace";
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, Target = "package0.ring_buffer", SessionName = name, MajorVersion = 12, EngineEdition = 8 };
        sql.RingBufferReads.Enqueue(
            "<RingBufferTarget truncated=\"0\" processingTime=\"0\" totalEventsProcessed=\"1\" eventCount=\"1\" droppedCount=\"0\" memoryUsed=\"1024\">"
            + XeXmlEvents.Progress("2024-05-01T01:00:01.000Z", "step 1") + "</RingBufferTarget>");
        await using var server = TdsServerDouble.Start(sql.Script);
        server.RefuseNextLogins(2, TdsError.ServiceError());
        var clock = new FakeClock();
        var changes = new RecordingLiveObserver();
        var settings = new CaptureSessionSettings(name);
        Assert.Empty(settings.Validate());
        var source = LiveSources.Open(new LiveSourceSettings(new SqlConnectionFactory(TdsClient.Settings(server)), settings)
        {
            Transport = LiveTransport.RingBuffer,
            Observer = changes,
            Time = clock,
        });

        // When it is read, the fake clock firing each wait
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        stop.CancelAfter(TimeSpan.FromSeconds(20));
        var status = new BackupXe.Core.Events.SourceStatus();
        var reading = Task.Run(async () =>
        {
            await foreach (var _ in source.ReadEventsAsync(status, stop.Token))
            {
                await stop.CancelAsync();
            }
        }, TestContext.Current.CancellationToken);
        await clock.FireNextTimerAsync();
        await clock.FireNextTimerAsync();
        await reading;

        // Then the event came, after two retries named by their error, and the name went to the server as it is
        Assert.Empty(status.Problems);
        Assert.Equal(2, changes.Of<LiveSourceChange.Retrying>().Count);
        Assert.All(changes.Of<LiveSourceChange.Retrying>(), r => Assert.Equal(40540, r.Error));
        Assert.Contains(server.Requests, r => r.Text.Contains("DECLARE @SessionName sysname = N'Verbose backup trace';", StringComparison.Ordinal));
        Assert.Equal(name, server.Requests.First(r => r.Text.Contains("N'ring_buffer'", StringComparison.Ordinal)).Parameters["@session"]);
        Assert.DoesNotContain(changes.Changes, c => c is LiveSourceChange.Stopped);
    }

    [Fact]
    public async Task The_central_history_store_opens_through_4060_with_18456_during_a_failover()
    {
        // Given a repository in an availability group failing over: its first two logins get the pair
        var script = new TdsScript().On("OBJECT_ID(N'dbo.operations'", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("exists")).Row(1)));
        await using var server = TdsServerDouble.Start(script);
        server.RefuseNextLogins(2, TdsError.CannotOpenDatabase("BackupXeHistory", TdsClient.User));
        var clock = new FakeClock();
        var changes = new RecordingLiveObserver();
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(observer: changes, time: clock));

        // When the daemon initializes it
        var initializing = store.InitializeAsync(TestContext.Current.CancellationToken);
        await clock.FireNextTimerAsync();
        await clock.FireNextTimerAsync();
        await initializing;

        // Then it is open, after two waits named by 4060
        Assert.Equal(3, server.Logins.Count);
        Assert.Equal([4060, 4060], changes.Of<LiveSourceChange.Retrying>().Select(r => r.Error));
    }
}
