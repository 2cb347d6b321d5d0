using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.SqlServer;
using Xunit;

namespace BackupXe.Tests.Cli;

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
}
