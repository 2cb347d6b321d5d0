using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The daemon's capture windows: the session started before a window, read during it and stopped after it once no
/// backup runs, through Microsoft.Data.SqlClient against the TDS double (not SQL Server) on a fake clock. The clock
/// starts at 02:00 UTC; the window opens at 03:00 UTC for an hour, armed from 02:55.
/// </summary>
public sealed class CaptureWindowTests : IDisposable
{
    private static readonly DateTimeOffset Start = new(2024, 5, 1, 2, 0, 0, TimeSpan.Zero);
    private static readonly DateTimeOffset Armed = Start.AddMinutes(55);
    private static readonly DateTimeOffset WindowEnd = Start.AddHours(2);

    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly FakeClock _clock = new(Start);
    private readonly List<(DateTimeOffset From, DateTimeOffset? To)> _reads = [];

    public CaptureWindowTests() => _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);

    public void Dispose() => _loggers.Dispose();

    private static ScriptedSqlServer StoppedSession() => new() { SessionExists = true, SessionRunning = false, StartsWithServer = false };

    /// <summary>The monitor over the double, reading with a reader that records when it read; returns it running.</summary>
    private (Task Run, CancellationTokenSource Stop) Monitor(TdsServerDouble server, bool createWhenMissing = true, Func<CancellationToken, Task>? read = null)
    {
        var (schedule, problems) = CaptureSchedule.From(
            new CaptureWindowsOptions { TimeZone = "UTC", LeadMinutes = 5, Windows = [new CaptureWindowOptions { Start = "0 3 * * *", DurationMinutes = 60 }] },
            "BackupXe:Instances:0:CaptureWindows");
        Assert.Empty(problems);
        var arming = new SessionArming(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(StartWithServer: false), createWhenMissing);
        var monitor = new CaptureWindowMonitor("prod", schedule!, arming, read ?? ReadAsync, _clock, TimeSpan.FromSeconds(30), _loggers.CreateLogger("capture"));
        var stop = new CancellationTokenSource();
        return (Task.Run(() => monitor.RunAsync(stop.Token)), stop);
    }

    private async Task ReadAsync(CancellationToken token)
    {
        var index = _reads.Count;
        _reads.Add((_clock.GetUtcNow(), null));
        try
        {
            await Task.Delay(Timeout.Infinite, token);
        }
        catch (OperationCanceledException)
        {
            _reads[index] = (_reads[index].From, _clock.GetUtcNow());
        }
    }

    private static IReadOnlyList<string> Ddl(TdsServerDouble server) =>
        [.. server.Requests.Select(r => r.Text).Where(t => t.Contains("ALTER EVENT SESSION", StringComparison.Ordinal)
            || t.Contains("CREATE EVENT SESSION", StringComparison.Ordinal) || t.Contains("DROP EVENT SESSION", StringComparison.Ordinal))];

    /// <summary>Waits (in real time) until the reader the monitor started on the thread pool has begun.</summary>
    private async Task ReadingStartedAsync()
    {
        for (var spins = 0; _reads.Count == 0 && spins < 10_000; spins++)
        {
            await Task.Delay(1);
        }
    }

    /// <summary>Moves the clock to the monitor's next timer, which must be due at <paramref name="at"/>.</summary>
    /// <remarks><paramref name="meanwhile"/> runs once the timer is set, so the monitor is waiting and cannot race it.</remarks>
    private async Task AdvanceToAsync(DateTimeOffset at, Action? meanwhile = null)
    {
        var due = await _clock.NextTimerAsync();
        Assert.Equal(at, _clock.GetUtcNow() + due);
        meanwhile?.Invoke();
        _clock.Advance(due);
    }

    private static async Task StopAsync((Task Run, CancellationTokenSource Stop) monitor)
    {
        await monitor.Stop.CancelAsync();
        await monitor.Run.WaitAsync(TimeSpan.FromSeconds(20));
        monitor.Stop.Dispose();
    }

    /// <summary>
    /// The monitor over <paramref name="sql"/> with the clock moved to each of <paramref name="timers"/> in turn, then
    /// stopped; returns the session DDL the server received.
    /// </summary>
    private async Task<IReadOnlyList<string>> RunThroughAsync(ScriptedSqlServer sql, params DateTimeOffset[] timers)
    {
        await using var server = TdsServerDouble.Start(sql.Script);
        var monitor = Monitor(server);
        foreach (var at in timers)
        {
            await AdvanceToAsync(at);
        }

        await StopAsync(monitor);
        return Ddl(server);
    }

    [Fact]
    public async Task A_window_starts_the_stopped_session_before_it_reads_it_during_it_and_stops_it_after()
    {
        // Given a stopped session installed with STARTUP_STATE OFF, and a daemon that may start and stop it
        var sql = StoppedSession();
        await using var server = TdsServerDouble.Start(sql.Script);
        var monitor = Monitor(server);

        // When the clock reaches the lead before the window, then the window's end
        await AdvanceToAsync(Armed);
        await ReadingStartedAsync();
        await AdvanceToAsync(WindowEnd, () => Assert.True(sql.SessionRunning, "the session runs through the window"));
        await AdvanceToAsync(WindowEnd + CaptureWindowMonitor.DrainTime);

        // ... and waits for the next day's lead: its timer is due then, and is not fired, since the next window's START
        // could otherwise reach the server before the stop below (four statements, seen once in a full run under load)
        Assert.Equal(Armed.AddDays(1), _clock.GetUtcNow() + await _clock.NextTimerAsync());
        await StopAsync(monitor);

        // Then it was started once at 02:55, read from then until the drain after the stop, and stopped once after 04:00
        Assert.Collection(Ddl(server),
            start => Assert.Contains("STATE = START", start, StringComparison.Ordinal),
            stop => Assert.Contains("STATE = STOP", stop, StringComparison.Ordinal));
        Assert.False(sql.SessionRunning);
        var read = Assert.Single(_reads);
        Assert.Equal(Armed, read.From);
        Assert.Equal(WindowEnd + CaptureWindowMonitor.DrainTime, read.To);
        Assert.Single(_log.WithEventId(200));
        Assert.Single(_log.WithEventId(204));
    }

    [Fact]
    public async Task A_backup_running_past_the_window_keeps_the_session_armed_until_it_ends()
    {
        // Given a backup that is still running when the window ends
        var sql = StoppedSession();
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 80, 60_000, Start.UtcDateTime, "BACKUPIO", 3, "BACKUPBUFFER"));
        await using var server = TdsServerDouble.Start(sql.Script);
        var monitor = Monitor(server);

        // When the window ends, and the backup ends a minute later
        await AdvanceToAsync(Armed);
        await AdvanceToAsync(WindowEnd);
        await AdvanceToAsync(WindowEnd + CaptureWindowMonitor.RunningCheckInterval);
        await AdvanceToAsync(WindowEnd + (2 * CaptureWindowMonitor.RunningCheckInterval), () =>
        {
            Assert.True(sql.SessionRunning, "stopped under a running backup");
            lock (sql.RunningRequests)
            {
                sql.RunningRequests.Clear();
            }
        });
        await AdvanceToAsync(WindowEnd + (2 * CaptureWindowMonitor.RunningCheckInterval) + CaptureWindowMonitor.DrainTime);
        await StopAsync(monitor);

        // Then the session was stopped only at the first check that found no backup, and read until then; the wait is said once
        Assert.Equal(2, Ddl(server).Count);
        Assert.False(sql.SessionRunning);
        Assert.Equal(WindowEnd + (2 * CaptureWindowMonitor.RunningCheckInterval) + CaptureWindowMonitor.DrainTime, Assert.Single(_reads).To);
        var kept = Assert.Single(_log.WithEventId(202));
        Assert.Equal("SalesDB", kept.Scalar("Database"));
    }

    [Fact]
    public async Task A_2022_login_that_could_start_but_not_stop_the_session_is_refused_before_any_ddl()
    {
        // Given SQL Server 2022 and a login with ENABLE but not DISABLE
        var sql = StoppedSession();
        sql.MajorVersion = 16;
        sql.Permissions.Clear();
        sql.Permissions.AddRange(["CREATE ANY EVENT SESSION", "ALTER ANY EVENT SESSION ENABLE", "VIEW SERVER PERFORMANCE STATE", "CONNECT SQL"]);

        // When the window comes
        var ddl = await RunThroughAsync(sql, Armed, WindowEnd);

        // Then nothing was changed or read, and one line names the GRANT
        Assert.Empty(ddl);
        Assert.False(sql.SessionRunning);
        Assert.Empty(_reads);
        var refused = Assert.Single(_log.WithEventId(201));
        Assert.Contains($"GRANT ALTER ANY EVENT SESSION DISABLE TO [{TdsClient.User}];", refused.RenderMessage(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_session_that_starts_with_the_server_is_not_armed()
    {
        var sql = StoppedSession();
        sql.StartsWithServer = true;

        var ddl = await RunThroughAsync(sql, Armed, WindowEnd);

        Assert.Empty(ddl);
        Assert.Empty(_reads);
        Assert.Contains("STARTUP_STATE = OFF", Assert.Single(_log.WithEventId(201)).RenderMessage(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_session_found_running_is_read_in_the_window_and_left_running_after_it()
    {
        // Given a session someone else started before the daemon did anything
        var sql = StoppedSession();
        sql.SessionRunning = true;

        // When a whole window goes by
        var ddl = await RunThroughAsync(sql, Armed, WindowEnd, WindowEnd + CaptureWindowMonitor.DrainTime);

        // Then it was said to run outside the windows, read during the window, and never started or stopped here
        Assert.Single(_log.WithEventId(206));
        Assert.Single(_reads);
        Assert.Empty(ddl);
        Assert.True(sql.SessionRunning);
        Assert.Single(_log.WithEventId(205));
    }

    [Fact]
    public async Task A_missing_session_is_created_with_startup_state_off_and_stopped_after_the_window()
    {
        var sql = new ScriptedSqlServer();
        await using var server = TdsServerDouble.Start(sql.Script);
        var monitor = Monitor(server);

        await AdvanceToAsync(Armed);
        await _clock.NextTimerAsync();
        Assert.True(_log.WithEventId(207).Count == 0, string.Join(" / ", _log.WithEventId(207).Select(e => e.RenderMessage())));
        await AdvanceToAsync(WindowEnd, () => Assert.False(sql.StartsWithServer));
        await AdvanceToAsync(WindowEnd + CaptureWindowMonitor.DrainTime);
        await StopAsync(monitor);

        Assert.Collection(Ddl(server),
            install => Assert.Contains("DECLARE @StartWithServer bit = 0;", install, StringComparison.Ordinal),
            stop => Assert.Contains("STATE = STOP", stop, StringComparison.Ordinal));
        Assert.True(sql.SessionExists);
        Assert.False(sql.SessionRunning);
    }

    [Fact]
    public async Task A_daemon_stopped_mid_window_stops_the_session_it_started()
    {
        var sql = StoppedSession();
        await using var server = TdsServerDouble.Start(sql.Script);
        var monitor = Monitor(server);

        await AdvanceToAsync(Armed);
        await _clock.NextTimerAsync();
        Assert.True(sql.SessionRunning);
        await StopAsync(monitor);

        Assert.False(sql.SessionRunning);
        Assert.Equal(2, Ddl(server).Count);
    }

    [Fact]
    public async Task A_history_failure_while_armed_stops_the_monitor_at_once_and_the_session_it_started()
    {
        // Given a reader whose history store fails as soon as the window's reading begins
        var sql = StoppedSession();
        await using var server = TdsServerDouble.Start(sql.Script);
        var monitor = Monitor(server, read: _ => Task.FromException(new BackupXe.History.HistoryStoreException("the history file is damaged")));

        // When the window opens
        await AdvanceToAsync(Armed);

        // Then the failure ends the monitor without waiting for the window's end (the daemon stops on it), and the
        // session it had started is stopped again
        await Assert.ThrowsAsync<BackupXe.History.HistoryStoreException>(() => monitor.Run.WaitAsync(TimeSpan.FromSeconds(20)));
        Assert.False(sql.SessionRunning);
        Assert.Equal(2, Ddl(server).Count);
        monitor.Stop.Dispose();
    }
}
