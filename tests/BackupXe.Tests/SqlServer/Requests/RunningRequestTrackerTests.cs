using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer.Requests;
using Xunit;

namespace BackupXe.Tests.SqlServer.Requests;

public sealed class RunningRequestTrackerTests
{
    private static readonly DateTime Start = new(2026, 11, 27, 2, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void A_request_is_shown_again_only_when_it_moves_by_a_tenth()
    {
        var tracker = new RunningRequestTracker();

        var first = tracker.Update([Request(percent: 12)], _ => true);
        var same = tracker.Update([Request(percent: 18)], _ => true);
        var moved = tracker.Update([Request(percent: 21)], _ => true);

        Assert.Single(first.Moved);
        Assert.Empty(same.Moved);
        Assert.Equal(21, Assert.Single(moved.Moved).PercentComplete);
    }

    [Fact]
    public void A_request_gone_before_any_event_is_reported_gone_once()
    {
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40)], _ => true);

        var gone = tracker.Update([], _ => true);
        var after = tracker.Update([], _ => true);

        Assert.Equal(61, Assert.Single(gone.Gone).SessionId);
        Assert.Empty(after.Gone);
        Assert.Equal(0, tracker.Count);
    }

    [Fact]
    public void An_operation_whose_start_the_trace_missed_takes_the_requests_start_and_percent()
    {
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40)], _ => true);
        var firstEvent = Start.AddMinutes(30);

        var tie = tracker.Follow(Progress(firstEvent, startObserved: false));

        Assert.NotNull(tie);
        Assert.Equal(Start, tie.Progress.Since);
        Assert.Equal(TimeSpan.FromMinutes(30) + TimeSpan.FromSeconds(5), tie.Progress.Elapsed);
        Assert.Equal(40, tie.Progress.Percent);
        Assert.Equal(firstEvent, tie.FirstEvent);
        Assert.Empty(tracker.Update([Request(percent: 90)], _ => true).Moved);
    }

    [Fact]
    public void An_older_operation_of_the_same_session_is_not_tied_to_the_request()
    {
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40)], _ => true);

        var tie = tracker.Follow(Progress(Start.AddMinutes(-20), startObserved: true));

        Assert.Null(tie);
    }

    [Fact]
    public void A_backup_whose_request_runs_in_another_database_is_still_tied()
    {
        // A job's backup runs from master: the view names the database it executes in, not the one backed up.
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40) with { Database = "master" }], _ => true);

        var tie = tracker.Follow(Progress(Start.AddMinutes(1), startObserved: false));

        Assert.NotNull(tie);
        Assert.Equal(Start, tie.Progress.Since);
    }

    [Fact]
    public void A_restore_of_the_same_session_is_not_tied_to_a_backup_request()
    {
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40)], _ => true);

        var tie = tracker.Follow(Progress(Start.AddMinutes(1), startObserved: false) with { Kind = OperationKind.Restore });

        Assert.Null(tie);
    }

    [Fact]
    public void A_completed_operation_releases_its_request_with_the_first_event_it_saw()
    {
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40)], _ => true);
        tracker.Follow(Progress(Start.AddMinutes(30), startObserved: false));

        var report = new OperationReport { Kind = OperationKind.Backup, Status = OperationStatus.Completed, Database = "SalesDB", SessionId = 61, End = Start.AddMinutes(50) };
        var completed = tracker.Complete(report);

        Assert.NotNull(completed);
        Assert.Equal(Start.AddMinutes(30), completed.Value.FirstEvent);
        Assert.Equal(0, tracker.Count);
    }

    [Fact]
    public void The_latest_read_says_nothing_about_a_stall_that_began_after_it()
    {
        var tracker = new RunningRequestTracker();
        tracker.Update([Request(percent: 40)], _ => true);

        Assert.NotNull(tracker.Latest(61, Start.AddMinutes(30)));
        Assert.Null(tracker.Latest(61, Start.AddMinutes(31)));
        Assert.Null(tracker.Latest(62, Start));
    }

    [Fact]
    public void Requests_for_databases_not_watched_are_left_out()
    {
        var tracker = new RunningRequestTracker();

        var changes = tracker.Update([Request(percent: 40)], database => database == "HR");

        Assert.Empty(changes.Moved);
        Assert.Equal(0, tracker.Count);
    }

    private static RunningRequest Request(double percent) => new(
        SessionId: 61,
        Command: "BACKUP DATABASE",
        Database: "SalesDB",
        PercentComplete: percent,
        EstimatedRemaining: TimeSpan.FromMinutes(20),
        StartUtc: Start,
        ServerUtc: Start.AddMinutes(30),
        WaitType: "BACKUPIO",
        WaitTime: TimeSpan.FromMilliseconds(12),
        LastWaitType: "BACKUPIO");

    private static OperationProgress Progress(DateTime since, bool startObserved) => new(
        OperationKind.Backup, OperationScope.Database, "SalesDB", 61, since, TimeSpan.FromSeconds(5), null, null, null, null, null,
        "copy-data", null, StartObserved: startObserved);
}
