using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.History.HistoryOperations;

namespace BackupXe.Tests.History;

public sealed class HistoryMergeTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);

    [Fact]
    public void One_backup_seen_by_msdb_and_commandlog_becomes_one_record_with_the_best_of_each()
    {
        // Given: CommandLog starts 0.4 s before msdb's whole-second start
        var msdb = Msdb("Sales", Night, 60, 20 * GiB);
        var log = CommandLog("Sales", Night.AddMilliseconds(-400), 60.9);

        // When
        var merged = Assert.Single(HistoryMerge.Fold([msdb, log]));

        // Then: finer times from CommandLog, sizes from msdb, options from the command text
        Assert.Equal(Night.AddMilliseconds(-400), merged.Start);
        Assert.Equal(0.001, merged.TimeResolutionSeconds);
        Assert.Equal(20 * GiB, merged.BytesRead);
        Assert.Equal(20 * GiB / 3, merged.BytesWritten);
        Assert.Equal(50, merged.Options.BufferCount);
        Assert.Equal([HistorySource.Msdb, HistorySource.CommandLog], merged.Sources);
    }

    [Fact]
    public void Merging_is_idempotent_and_order_free()
    {
        var msdb = Msdb("Sales", Night, 60, 20 * GiB);
        var log = CommandLog("Sales", Night.AddMilliseconds(-400), 60.9);

        var once = HistoryMerge.Merge(msdb, log);
        var twice = HistoryMerge.Merge(once, msdb);
        var reversed = HistoryMerge.Merge(log, msdb);

        Assert.Equal(ReportJson.Serialize(once), ReportJson.Serialize(twice));
        Assert.Equal(ReportJson.Serialize(once), ReportJson.Serialize(reversed));
    }

    [Fact]
    public void Different_databases_times_devices_or_scopes_stay_apart()
    {
        var sales = Msdb("Sales", Night, 60, 20 * GiB);

        Assert.False(HistoryMerge.SameOperation(sales, Msdb("HR", Night, 60, GiB)));
        Assert.False(HistoryMerge.SameOperation(sales, Msdb("Sales", Night.AddMinutes(5), 60, 20 * GiB)));
        Assert.False(HistoryMerge.SameOperation(sales, CommandLog("Sales", Night, 60, path: @"Y:\other.bak")));
        Assert.False(HistoryMerge.SameOperation(sales, sales with { Scope = Core.Events.OperationScope.Log }));
        Assert.True(HistoryMerge.SameOperation(sales, Msdb("SALES", Night.AddSeconds(1), 59, 20 * GiB)));
    }

    [Fact]
    public void A_utc_capture_meets_local_msdb_times_only_through_msdb_time_zone()
    {
        // Given: the server runs at UTC+2; the XE capture is in UTC
        var msdb = Msdb("Sales", Night, 60, 20 * GiB);
        var capture = CommandLog("Sales", DateTime.SpecifyKind(Night.AddHours(-2), DateTimeKind.Utc), 60) with { Sources = [HistorySource.Capture] };

        Assert.False(HistoryMerge.SameOperation(msdb, capture));
        Assert.True(HistoryMerge.SameOperation(msdb with { UtcOffset = TimeSpan.FromHours(2) }, capture));
        Assert.True(HistoryMerge.SameOperation(capture, msdb with { UtcOffset = TimeSpan.FromHours(2) }));
    }
}
