using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The daemon's live instance on the file transport (and one on the stream transport), through Microsoft.Data.SqlClient 6.1.8 against the TDS
/// double (session status and event_file rows scripted from the sample capture). Not SQL Server.
/// </summary>
public sealed class LiveInstanceTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("backupxe-live-").FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private EventFileLiveSource Source(TdsServerDouble server, SqliteCheckpointStore checkpoints, RecordingLiveObserver observer, bool ensureSession = false) => new(
        "prod",
        new SqlConnectionFactory(TdsClient.Settings(server)),
        new CaptureSessionSettings(),
        ensureSession,
        new EventFileTailOptions { PollInterval = TimeSpan.FromMilliseconds(5), BatchSize = 500, SessionCheckEveryEmptyReads = 2 },
        checkpoints,
        TimeSpan.Zero,
        observer);

    [Fact]
    public async Task Reads_a_running_sessions_event_file_through_drops_and_saves_its_checkpoint()
    {
        // Given a running session whose file holds the sample backup twice, an hour apart, and three resets mid-result
        var rows = ScriptedEventFile.BufferStarvedBackup();
        var file = ScriptedEventFile.Of([.. rows, .. rows.Select(row => LiveRestartTests.Shift(row, 1))], 37, 40);
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(file, new Queue<int>([120, 7, 333])));
        var checkpoints = new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System);
        var observer = new RecordingLiveObserver();
        var live = Source(server, checkpoints, observer);
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var status = new SourceStatus();

        // When the daemon's analyzer reads it until every event went by
        var reports = await new SessionOperationAnalyzer()
            .AnalyzeAsync(new StopAfter(live, 14_300, stop), status, live.MarkIdle, stop.Token)
            .ToListAsync();

        // Then both backups came out whole, the drops were transient, and the position saved is the idle point
        // between the two: the last event of the first backup
        Assert.Equal(2, reports.Count);
        Assert.Equal(14_300, status.Events);
        Assert.Equal(3, observer.Of<LiveSourceChange.Disconnected>().Count);
        Assert.Equal(@"C:\MSSQL\Log\BackupXe_0_*.xel", server.Requests.First(r => r.Text.Contains("fn_xe_file", StringComparison.Ordinal)).Parameters["@path"]);
        var saved = await checkpoints.LoadAsync("prod", CancellationToken.None);
        Assert.NotNull(saved);
        var firstFile = await file.ReadAsync(null, 7150, CancellationToken.None).ToListAsync();
        Assert.Equal(firstFile[^1].Position, saved.Partial);
        Assert.Equal(7150 % 37, saved.PartialRows);
    }

    [Fact]
    public async Task The_last_backup_on_a_quiet_server_is_recorded_without_waiting_for_the_next_event()
    {
        // Given a running session whose file holds one backup and nothing after it
        var file = ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40);
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(file));
        var live = Source(server, new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System), new RecordingLiveObserver());
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(20));

        // When the daemon's analyzer reads it
        var report = await new SessionOperationAnalyzer().AnalyzeAsync(live, new SourceStatus(), live.MarkIdle, stop.Token).FirstAsync(CancellationToken.None);

        // Then the backup comes out complete while the source is still being read: no later event, no shutdown needed
        Assert.False(stop.IsCancellationRequested, "the report waited for the end of the source");
        Assert.Equal(BackupXe.Core.Reporting.OperationStatus.Completed, report.Status);
        Assert.Equal("SalesDB", report.Database);
        await stop.CancelAsync();
    }

    [Fact]
    public async Task The_daemons_reports_name_the_server_they_were_read_from()
    {
        // Given a SQL Server 2019 whose running session holds the sample backup, read as the daemon opens an instance
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));
        server.MajorVersion = 15;
        var factory = new LiveSourceFactory(
            new ReplaySourceFactory(_directory, TimeProvider.System),
            new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System),
            _ => new RecordingLiveObserver(),
            TimeProvider.System);
        var source = factory.Open(new InstanceOptions
        {
            Name = "prod", Server = server.Server, UserName = TdsClient.User, Password = TdsClient.Password,
            Encrypt = false, // test-only: the double speaks no TLS
        });
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(30));

        // When the daemon's analyzer reports the backup
        var report = await new SessionOperationAnalyzer().AnalyzeAsync(source, new SourceStatus(), stop.Token).FirstAsync(stop.Token);
        await stop.CancelAsync();

        // Then its server is the one the connection reached, as its login response said
        Assert.NotNull(report.Server);
        Assert.Equal(15, report.Server.Major);
        Assert.Equal("15.0.2000", report.Server.Build);
        Assert.Equal("the connected server's login response", report.Server.Evidence);
    }

    [Fact]
    public async Task A_session_the_daemon_creates_writes_event_files_named_after_it()
    {
        // Given a server without the session, and an instance that asks for "Nightly" to be created
        var sql = new ScriptedSqlServer { SessionName = "Nightly" };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));
        var factory = new LiveSourceFactory(
            new ReplaySourceFactory(_directory, TimeProvider.System),
            new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System),
            _ => new RecordingLiveObserver(),
            TimeProvider.System);
        var source = factory.Open(new InstanceOptions
        {
            Name = "prod", Server = server.Server, UserName = TdsClient.User, Password = TdsClient.Password,
            Encrypt = false, // test-only: the double speaks no TLS
            SessionName = "Nightly", EnsureSession = true,
        });

        // When its first events are read
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var events = await source.ReadEventsAsync(new SourceStatus(), stop.Token).Take(10).ToListAsync(stop.Token);

        // Then the session was created with Nightly.xel, not the default session's BackupXe.xel
        Assert.Equal(10, events.Count);
        var install = Assert.Single(server.Requests, r => r.Text.Contains("ADD EVENT sqlserver.backup_restore_progress_trace", StringComparison.Ordinal));
        Assert.Contains("N'Nightly.xel'", install.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("BackupXe.xel", install.Text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_session_stopped_under_the_tail_is_reported_or_recreated_after_every_event_was_read(bool ensureSession)
    {
        // Given the sample backup read to its end, then the session stopped by someone
        var rows = ScriptedEventFile.BufferStarvedBackup();
        var file = ScriptedEventFile.Of(rows, 37, 40);
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(file));
        var observer = new RecordingLiveObserver();
        var live = Source(server, new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System), observer, ensureSession);
        var status = new SourceStatus();
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var events = 0;

        // When
        var reading = Task.Run(async () =>
        {
            await foreach (var _ in live.ReadEventsAsync(status, stop.Token))
            {
                if (++events == rows.Count)
                {
                    sql.SessionRunning = false;
                }
            }
        });
        while (!reading.IsCompleted && observer.Of<LiveSourceChange.SessionRecreated>().Count == 0)
        {
            await Task.Delay(10);
        }

        await stop.CancelAsync();
        await reading;

        // Then every event was read once, and the stop (or the re-creation) names the session
        Assert.Equal(rows.Count, events);
        if (ensureSession)
        {
            Assert.Equal("BackupXe", Assert.Single(observer.Of<LiveSourceChange.SessionRecreated>()).SessionName);
            Assert.True(sql.SessionRunning);
        }
        else
        {
            Assert.Contains("BackupXe is stopped", Assert.Single(observer.Of<LiveSourceChange.Stopped>()).Reason, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_session_that_is_not_running_is_reported_without_reading()
    {
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = false };
        await using var server = TdsServerDouble.Start(sql.Script);
        var live = Source(server, new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System), new RecordingLiveObserver());
        var status = new SourceStatus();

        // The bound turns a read that never stops into a failed assertion instead of a hung run.
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var events = await live.ReadEventsAsync(status, bound.Token).ToListAsync();

        Assert.Empty(events);
        Assert.True(status.Unusable);
        Assert.Contains("not running", Assert.Single(status.Problems).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_refused_login_is_reported_without_the_password()
    {
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script);
        server.Credentials = (TdsClient.User, "the-new-password");
        var live = Source(server, new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System), new RecordingLiveObserver());
        var status = new SourceStatus();

        // The bound turns a read that never stops into a failed assertion instead of a hung run.
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var events = await live.ReadEventsAsync(status, bound.Token).ToListAsync();

        Assert.Empty(events);
        var problem = Assert.Single(status.Problems).Message;
        Assert.Contains("(fatal)", problem, StringComparison.Ordinal);
        Assert.DoesNotContain(TdsClient.Password, problem, StringComparison.Ordinal);
    }

    [Fact]
    public void Live_instances_are_accepted_with_the_file_stream_or_ring_buffer_transport_and_refused_with_another()
    {
        var validator = new BackupXeOptionsValidator();
        BackupXeOptions Options(InstanceOptions instance) => new() { Instances = [instance] };

        var ok = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", UserName = "backupxe", Password = "x" }));
        var stream = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", UserName = "backupxe", Password = "x", Transport = "stream" }));
        var other = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", UserName = "backupxe", Password = "x", Transport = "histogram" }));
        var ring = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", UserName = "backupxe", Password = "x", Transport = "ring_buffer" }));
        var ringEnsured = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", UserName = "backupxe", Password = "x", Transport = "ring_buffer", EnsureSession = true }));
        var batch = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", BatchSize = 0 }));

        Assert.True(ok.Succeeded, ok.FailureMessage);
        Assert.True(stream.Succeeded, stream.FailureMessage);
        Assert.Contains("BackupXe:Instances:0:Transport must be 'file', 'stream' (experimental) or 'ring_buffer'; it is 'histogram'", other.FailureMessage, StringComparison.Ordinal);
        Assert.True(ring.Succeeded, ring.FailureMessage);
        Assert.Contains("BackupXe:Instances:0:EnsureSession creates a session with an event_file target", ringEnsured.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("BackupXe:Instances:0:BatchSize", batch.FailureMessage, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Server=db1;User ID=backupxe;Password=x", true)]
    [InlineData("Server=db1;User ID=backupxe;Password=x;Encrypt=true", true)]
    [InlineData("Server=db1;User ID=backupxe;Password=x;Encrypt=false", false)]
    public void A_connection_string_is_encrypted_unless_it_says_Encrypt_false(string connectionString, bool encrypted)
    {
        var settings = LiveInstanceSettings.Build(new InstanceOptions { Name = "prod", ConnectionString = connectionString });

        Assert.Equal(encrypted, settings.Encrypt);
    }

    [Theory]
    [InlineData("Server=db1;User ID=backupxe;Password=x;Encrypt=Strict;HostNameInCertificate=sql01.corp.example", true, "sql01.corp.example")]
    [InlineData("Server=db1;User ID=backupxe;Password=x", false, null)]
    public void A_connection_string_keeps_strict_encryption_and_the_host_name_in_the_certificate(string connectionString, bool strict, string? hostName)
    {
        var settings = LiveInstanceSettings.Build(new InstanceOptions { Name = "prod", ConnectionString = connectionString });

        Assert.Equal(strict, settings.StrictEncryption);
        Assert.Equal(hostName, settings.HostNameInCertificate);
        Assert.True(settings.Encrypt);
    }

    [Fact]
    public void An_instance_with_strict_encryption_and_a_trusted_certificate_is_refused_with_its_key()
    {
        var validator = new BackupXeOptionsValidator();
        BackupXeOptions Options(InstanceOptions instance) => new() { Instances = [instance] };

        var keys = validator.Validate(null, Options(new InstanceOptions
        {
            Name = "prod", Server = "db1", UserName = "backupxe", Password = "x", StrictEncryption = true, TrustServerCertificate = true,
        }));
        var connectionString = validator.Validate(null, Options(new InstanceOptions
        {
            Name = "prod", ConnectionString = "Server=db1;User ID=backupxe;Password=x;Encrypt=false;HostNameInCertificate=sql01.corp.example",
        }));
        var strictOk = validator.Validate(null, Options(new InstanceOptions
        {
            Name = "prod", Server = "db1", UserName = "backupxe", Password = "x", StrictEncryption = true, HostNameInCertificate = "sql01.corp.example",
        }));

        Assert.Contains("BackupXe:Instances:0: --strict-encryption always validates the server certificate", keys.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("BackupXe:Instances:0: --host-name-in-certificate needs encryption", connectionString.FailureMessage, StringComparison.Ordinal);
        Assert.DoesNotContain("Password=x", connectionString.FailureMessage, StringComparison.Ordinal);
        Assert.True(strictOk.Succeeded, strictOk.FailureMessage);
    }

    [Fact]
    public void A_sql_login_without_a_password_is_refused_at_start_up_naming_the_key_and_its_environment_variable()
    {
        var validator = new BackupXeOptionsValidator();
        BackupXeOptions Options(InstanceOptions instance) => new() { Instances = [instance] };

        var keys = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1", UserName = "backupxe" }));
        var connectionString = validator.Validate(null, Options(new InstanceOptions { Name = "prod", ConnectionString = "Server=db1;User ID=backupxe" }));
        var passwordBeside = validator.Validate(null, Options(new InstanceOptions { Name = "prod", ConnectionString = "Server=db1;User ID=backupxe", Password = "x" }));
        var integrated = validator.Validate(null, Options(new InstanceOptions { Name = "prod", Server = "db1" }));
        var store = validator.Validate(null, new BackupXeOptions
        {
            Instances = [new InstanceOptions { Name = "prod", Server = "db1" }],
            History = new HistoryOptions { Provider = "sqlserver", ConnectionString = "Server=central;Database=dba;User ID=backupxe" },
        });

        Assert.Contains("BackupXe:Instances:0:Password is not set: SqlPassword as 'backupxe' needs the login's secret; give it through the environment (BackupXe__Instances__0__Password)", keys.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("BackupXe:Instances:0:Password is not set", connectionString.FailureMessage, StringComparison.Ordinal);
        Assert.True(passwordBeside.Succeeded, passwordBeside.FailureMessage);
        Assert.True(integrated.Succeeded, integrated.FailureMessage);
        Assert.Contains("BackupXe:History:ConnectionString names the login 'backupxe' (SqlPassword) but no password: give the connection string through the environment (BackupXe__History__ConnectionString)", store.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_driver_refuses_a_sql_login_without_a_password_before_any_server_answers_and_would_be_retried_as_its_own_fault()
    {
        // Why start-up refuses it: the connection BackupXe builds for such a login never reaches the server, and the
        // live sources would take the driver's exception for a driver fault and reconnect for ever. The port is one
        // nothing listens on; the refusal comes first.
        var factory = new SqlConnectionFactory(new SqlConnectionSettings("127.0.0.1,1", Authentication: SqlAuthentication.SqlPassword, UserName: "backupxe"));

        var failure = await Record.ExceptionAsync(async () =>
        {
            await using var connection = factory.Create();
            await connection.OpenAsync(TestContext.Current.CancellationToken);
        });

        var refusal = Assert.IsType<InvalidOperationException>(failure);
        Assert.StartsWith("Either Credential or both 'User ID' and 'Password'", refusal.Message, StringComparison.Ordinal);
        Assert.Equal(LiveFailureKind.DriverFault, new SqlFailureClassifier().Classify(refusal));
    }

    [Fact]
    public async Task A_stream_instance_is_read_over_sys_fn_msxe_read_event_stream_and_its_backups_come_out_whole()
    {
        // Given an instance configured with Transport stream, whose session streams the BUILT backup as log buffers,
        // then the same backup an hour later (whose events release the first one's diagnosis)
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script));
        var backup = BackupXe.Testing.Xel.BuiltBackupScenario.BufferStarved();
        var built = XelStreamRows.Of(BackupXe.Testing.Xel.BuiltBackupCatalogue.Create(), [.. backup, .. backup.Select(e => e with { Timestamp = e.Timestamp.AddHours(1) })]);
        var feed = stream.Feed(0);
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Header, built.Header));
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Metadata, built.Metadata));
        foreach (var (bytes, _) in built.EventBuffers)
        {
            feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Events, bytes));
        }

        var instance = new InstanceOptions
        {
            Name = "prod", Server = server.Server, UserName = TdsClient.User, Password = TdsClient.Password, Encrypt = false, Transport = "stream",
        };
        var checkpoints = new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System);
        var observer = new RecordingLiveObserver();

        // When the daemon's factory opens it and its analyzer reads until the backup ended
        var source = new LiveSourceFactory(new ReplaySourceFactory(_directory, TimeProvider.System), checkpoints, _ => observer, TimeProvider.System).Open(instance);
        var expected = BackupXe.Tests.SqlServer.Live.EventStream.EventStreamDecoderTests.FileEvents(built.File()).Count;
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var status = new SourceStatus();
        var reports = await new SessionOperationAnalyzer().AnalyzeAsync(new StopAfter(source, expected, stop), status, stop.Token).ToListAsync();

        // Then both backups came out whole, every event once
        Assert.IsType<EventStreamLiveSource>(source);
        Assert.Equal(expected, status.Events);
        Assert.Equal(2, reports.Count);
        Assert.All(reports, r => Assert.True(r.Verdict?.Bottleneck == Bottleneck.BufferStarved, $"{r.Start} {r.End} {string.Join(" / ", r.Verdict?.Evidence ?? [])}"));
        Assert.Null(await checkpoints.LoadAsync("prod", CancellationToken.None));
        Assert.Empty(observer.Of<LiveSourceChange.EventsLost>());
        Assert.All(reports, r => Assert.Equal("15.0.2000 from the connected server's login response", $"{r.Server?.Build} from {r.Server?.Evidence}"));
    }

    /// <summary>Cancels <paramref name="stop"/> once <paramref name="count"/> events went by (the same instances are yielded).</summary>
    private sealed class StopAfter(ITraceEventSource inner, int count, CancellationTokenSource stop) : ITraceEventSource
    {
        public string Name => inner.Name;

        public string Format => inner.Format;

        public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
        {
            var seen = 0;
            await foreach (var traceEvent in inner.ReadEventsAsync(status, cancellationToken))
            {
                yield return traceEvent;
                if (++seen == count)
                {
                    await stop.CancelAsync();
                }
            }
        }
    }
}
