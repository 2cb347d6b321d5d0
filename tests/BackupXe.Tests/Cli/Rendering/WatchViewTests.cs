using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Requests;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

public class WatchViewTests
{
    [Fact]
    public void Watch_view_forgets_an_operation_once_it_is_no_longer_running()
    {
        // Given
        var view = new WatchView(new StringWriter(), new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null);
        var start = new DateTime(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc);
        OperationProgress Running(int i) => new(OperationKind.Backup, OperationScope.Database, $"Db{i}", 50 + i, start.AddMinutes(i), TimeSpan.FromSeconds(5), 40, null, null, null, null, "copy-data", null);

        // When: a thousand operations run one after the other
        for (var i = 0; i < 1000; i++)
        {
            view.ShowProgress([Running(i)]);
        }

        // Then
        Assert.Equal(1, view.Remembered);
    }

    [Fact]
    public void A_request_whose_database_is_not_yet_known_is_shown_as_such_and_never_hidden_by_the_database_filter()
    {
        // Given watch --database SalesDB, and the DMV showing a backup whose statement names no database yet (run from
        // master with a variable) beside one of another database
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: new HashSet<string> { "SalesDB" }, jsonLines: null);
        var now = new DateTime(2025, 3, 3, 2, 0, 30, DateTimeKind.Utc);

        // When
        view.ShowRequests(
        [
            new RunningRequest(61, "BACKUP DATABASE", null, 42, null, now.AddSeconds(-30), now, null, TimeSpan.Zero, "BACKUPIO") { RunsIn = "master" },
            new RunningRequest(62, "BACKUP DATABASE", "Ops", 10, null, now.AddSeconds(-30), now, null, TimeSpan.Zero, "BACKUPIO") { RunsIn = "Ops" },
        ]);

        // Then the unknown one shows, said to be unknown, and not as a backup of master; the other database's does not
        var line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("BACKUP DATABASE, session 61 (database not yet known)", line, StringComparison.Ordinal);
        Assert.DoesNotContain("master", line, StringComparison.Ordinal);
    }

    [Fact]
    public void An_older_operation_of_the_same_session_is_not_taken_for_the_running_request()
    {
        // Given the DMV shows session 61 backing up since 02:00, and the event file replays its 01:30 backup first
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null);
        var now = new DateTime(2025, 3, 3, 2, 0, 30, DateTimeKind.Utc);
        view.ShowRequests([new RunningRequest(61, "BACKUP DATABASE", "SalesDB", 20, null, now.AddSeconds(-30), now, null, TimeSpan.Zero, "BACKUPIO")]);

        // When
        view.ShowProgress([new OperationProgress(OperationKind.Backup, OperationScope.Database, "SalesDB", 61, now.AddMinutes(-30), TimeSpan.FromSeconds(5), 40, null, null, null, null, "copy-data", null, StartObserved: false)]);

        // Then the old backup is shown as itself, and the request still waits for its own events
        var old = output.ToString().Split('\n')[1];
        Assert.DoesNotContain("started before watch", old, StringComparison.Ordinal);
        Assert.Equal(1, view.TrackedRequests);
    }

    [Fact]
    public void A_request_whose_whole_operation_is_in_the_trace_is_not_shown_twice_nor_said_to_have_ended_unseen()
    {
        // Given
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null);
        var now = new DateTime(2025, 3, 3, 2, 0, 30, DateTimeKind.Utc);
        RunningRequest[] running = [new RunningRequest(61, "BACKUP DATABASE", "SalesDB", 20, null, now.AddSeconds(-30), now, null, TimeSpan.Zero, "BACKUPIO")];
        view.ShowRequests(running);

        // When its events, start included, arrive, then the DMV no longer lists it
        view.ShowProgress([new OperationProgress(OperationKind.Backup, OperationScope.Database, "SalesDB", 61, now.AddSeconds(-30), TimeSpan.FromSeconds(31), 40, null, null, null, null, "copy-data", null)]);
        view.ShowRequests(running);
        view.ShowRequests([]);

        // Then: the DMV line, one progress line without a note, nothing more
        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.Contains("from sys.dm_exec_requests", lines[0], StringComparison.Ordinal);
        Assert.DoesNotContain("started before watch", lines[1], StringComparison.Ordinal);
        Assert.Equal(0, view.TrackedRequests);
    }

    private static readonly DateTime RestoreStart = new(2024, 5, 2, 6, 15, 3, DateTimeKind.Utc);

    private static OperationProgress Zeroing(TimeSpan elapsed, TimeSpan inPhase) =>
        new(OperationKind.Restore, OperationScope.Database, "SalesArchive", 58, RestoreStart, elapsed, null, null, null, null, null, "wait-log-zero", null, InPhase: inPhase);

    [Fact]
    public void A_phase_that_moves_no_bytes_shows_its_time_and_names_itself_once_it_dominates()
    {
        // Given
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null);

        // When five minutes into log zeroing, seven into the restore
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(7), TimeSpan.FromMinutes(5))]);

        // Then no stuck-looking "?%  ? MB/s", but the phase, its time and the hint
        var line = output.ToString();
        Assert.Contains("wait-log-zero for 5 min 00 s (moves no backup bytes)", line, StringComparison.Ordinal);
        Assert.Contains("likely the bottleneck so far: 71% of the time in wait-log-zero", line, StringComparison.Ordinal);
        Assert.DoesNotContain("? MB/s", line, StringComparison.Ordinal);
    }

    [Fact]
    public void An_unchanged_operation_is_written_again_after_a_minute_of_input_time_as_a_heartbeat()
    {
        // Given
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null);

        // When the same phase is reported at 0 s, 30 s and 61 s
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(1))]);
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(4.5), TimeSpan.FromMinutes(1.5))]);
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(4) + TimeSpan.FromSeconds(61), TimeSpan.FromSeconds(121))]);

        // Then
        Assert.Equal(2, output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    [Fact]
    public void On_a_terminal_the_running_lines_are_redrawn_in_place_and_cleared_before_a_diagnosis()
    {
        // Given
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null, inPlace: true, width: 80);

        // When
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(1))]);
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(4.5), TimeSpan.FromMinutes(1.5))]);

        // Then the second draw goes back over the first, and no drawn line is wider than the terminal
        var text = output.ToString();
        Assert.Equal(1, text.Split("\u001b[1F\u001b[J").Length - 1);
        Assert.All(text.Split('\n', StringSplitOptions.RemoveEmptyEntries), line => Assert.True(line.Replace("\u001b[1F\u001b[J", "", StringComparison.Ordinal).Length < 80, line));
    }

    [Theory]
    [InlineData(200, "RESTORE [SalesArchive]  wait-log-zero 5m00s  expected waiting  elapsed 7m00s  top wait PREEMPTIVE_OS_WRITEFILEGATHER 300.0 s  likely the bottleneck: 71%  session 58  06:22:03.000")]
    [InlineData(120, "RESTORE [SalesArchive]  wait-log-zero 5m00s  expected waiting  elapsed 7m00s  wait PREEMPTIVE_OS_WRITEFILEGATHER")]
    [InlineData(100, "RESTORE [SalesArchive]  wait-log-zero 5m00s  elapsed 7m00s  wait PREEMPTIVE_OS_WRITEFILEGATHER")]
    [InlineData(80, "RESTORE [SalesArchive]  elapsed 7m00s  wait PREEMPTIVE_OS_WRITEFILEGATHER")]
    public void The_status_line_drops_the_least_useful_fields_first_and_keeps_the_elapsed_time_and_the_top_wait(int width, string expected)
    {
        // Given five minutes of log zeroing, seven into the restore, with the longest wait name a zeroing shows
        var op = Zeroing(TimeSpan.FromMinutes(7), TimeSpan.FromMinutes(5)) with { TopWait = "PREEMPTIVE_OS_WRITEFILEGATHER 300.0 s" };

        // When
        var line = WatchView.StatusLine(op, string.Empty, width);

        // Then
        Assert.Equal(expected, line);
        Assert.True(line.Length < width, line);
    }

    [Fact]
    public void At_80_columns_a_zeroing_without_waits_keeps_its_phase_and_says_it_is_expected_waiting()
    {
        // The heartbeat of the log-zeroing sample used to be cut to "wait-log-zero for 1" at 80 columns.
        Assert.Equal(
            "RESTORE [SalesArchive]  wait-log-zero 5m00s  expected waiting  elapsed 7m00s",
            WatchView.StatusLine(Zeroing(TimeSpan.FromMinutes(7), TimeSpan.FromMinutes(5)), string.Empty, 80));
    }

    [Theory]
    [InlineData(45, null, null, "45%  ETA 1m50s")]
    [InlineData(null, 1_288_490_189L, 4_294_967_296L, "1.2 GB of 4 GB")]
    [InlineData(null, 1_288_490_189L, null, "1.2 GB")]
    public void A_copy_shows_a_percent_or_a_byte_count_whenever_the_events_give_one(int? percent, long? bytes, long? estimated, string amount)
    {
        // Given a backup copying data
        var op = new OperationProgress(OperationKind.Backup, OperationScope.Database, "SalesDB", 61, RestoreStart, TimeSpan.FromSeconds(90), percent, bytes, estimated, 85.3, TimeSpan.FromSeconds(110), "copy-data", "BACKUPBUFFER 12.0 s");

        // When
        var status = WatchView.StatusLine(op, string.Empty, 80);
        var piped = WatchView.Line(op);

        // Then
        Assert.Equal($"BACKUP [SalesDB]  copy-data  {amount}  elapsed 1m30s  wait BACKUPBUFFER", status);
        Assert.DoesNotContain("?%", piped, StringComparison.Ordinal);
        Assert.Contains(percent is null ? amount : "45% [", piped, StringComparison.Ordinal);
    }

    [Fact]
    public void A_line_leaves_out_what_the_events_do_not_give_instead_of_question_marks()
    {
        // Given a restore transferring data whose input (an ERRORLOG) gives no percent, bytes, rate or wait
        var op = Zeroing(TimeSpan.FromMinutes(2), TimeSpan.FromMinutes(2)) with { Phase = "transfer-data", InPhase = null };

        // When / Then
        Assert.Equal("06:17:03.000  RESTORE DATABASE [SalesArchive], session 58  transfer-data  elapsed 2 min 00 s  top wait -", WatchView.Line(op));
    }

    [Fact]
    public void On_a_terminal_a_phase_change_is_kept_above_the_status_lines()
    {
        // Given
        var output = new StringWriter();
        var view = new WatchView(output, new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: null, inPlace: true, width: 80);
        var copying = Zeroing(TimeSpan.FromMinutes(2), TimeSpan.FromMinutes(2)) with { Phase = "copy-data", InPhase = null };

        // When the restore goes from copying to zeroing the log
        view.ShowProgress([copying]);
        view.ShowProgress([copying with { Elapsed = TimeSpan.FromMinutes(2.5) }]);
        view.ShowProgress([Zeroing(TimeSpan.FromMinutes(3), TimeSpan.FromSeconds(1))]);

        // Then one lasting line names the change, between the redraws
        var lines = output.ToString().Replace("\u001b[1F\u001b[J", "\n", StringComparison.Ordinal).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(
            [
                "RESTORE [SalesArchive]  copy-data  elapsed 2m00s  session 58  06:17:03.000",
                "RESTORE [SalesArchive]  copy-data  elapsed 2m30s  session 58  06:17:33.000",
                "06:18:03.000  RESTORE [SalesArchive]  wait-log-zero began, after copy-data; elapsed 3 min 00 s",
                "RESTORE [SalesArchive]  wait-log-zero 1s  expected waiting  elapsed 3m00s",
            ],
            lines);
    }
}

/// <summary>A paced replay ticks between events as a live server does, so a long zeroing shows life.</summary>
public sealed class WatchReplayHeartbeatTests
{
    [Fact]
    public async Task A_paced_replay_shows_the_log_zeroing_while_no_event_arrives()
    {
        // When the 22-minute restore, 18 of it zeroing the log with no message, replays 500 times faster (about 2.6 s)
        var run = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("log-zeroing-restore.log"), "--speed", "500", "--no-color");

        // Then lines between the zeroing's first and last message say how long it has run
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("wait-log-zero for ", run.Output, StringComparison.Ordinal);
        Assert.Contains("likely the bottleneck so far", run.Output, StringComparison.Ordinal);
    }
}
