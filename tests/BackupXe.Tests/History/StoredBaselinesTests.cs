using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using BackupXe.Worker.Configuration;
using Microsoft.Extensions.Options;
using Xunit;
using static BackupXe.Tests.Worker.Operations;

namespace BackupXe.Tests.History;

public sealed class StoredBaselinesTests : IDisposable
{
    private static readonly double[] TenNights = [112, 125, 118, 109, 130, 118, 121, 98, 115, 140];

    private readonly TempDirectory _directory = new();
    private readonly SqliteHistoryStore _history;

    public StoredBaselinesTests()
    {
        _history = new SqliteHistoryStore(_directory.File("history.db"), new FakeClock());
        _history.InitializeAsync(CancellationToken.None).GetAwaiter().GetResult();
    }

    public void Dispose() => _directory.Dispose();

    private StoredBaselines Detector(int windowSize = 10, int minimumSamples = 5, double thresholdRatio = 0.7)
        => new(_history, new BaselineComparisonSettings { Window = windowSize, MinimumRuns = minimumSamples, ThresholdRatio = thresholdRatio });

    private async Task StoreAsync(IEnumerable<OperationReport> reports, string instance = "prod")
    {
        foreach (var report in reports)
        {
            await _history.SaveAsync(instance, report, CancellationToken.None);
        }
    }

    private Task<BaselineComparisonReport?> CheckAsync(StoredBaselines detector, OperationReport report)
        => detector.CheckAsync("prod", report, CancellationToken.None);

    [Fact]
    public async Task A_backup_at_a_third_of_its_recent_median_is_a_regression()
    {
        await StoreAsync(Nightly("Sales", Monday, TenNights));

        var regression = await CheckAsync(Detector(), Backup("Sales", Monday, 41));

        Assert.NotNull(regression);
        Assert.Equal(118, regression.MedianMBps);
        Assert.Equal(10, regression.UsualRuns);
        Assert.Equal(35, Math.Round(100 * regression.ThroughputMBps!.Value / regression.MedianMBps!.Value));
    }

    [Fact]
    public async Task A_backup_just_above_the_threshold_is_not()
    {
        await StoreAsync(Nightly("Sales", Monday, TenNights));

        Assert.Null(await CheckAsync(Detector(), Backup("Sales", Monday, 0.7 * 118 + 0.1)));
        Assert.NotNull(await CheckAsync(Detector(), Backup("Sales", Monday, 0.7 * 118 - 0.1)));
    }

    [Fact]
    public async Task Too_few_samples_give_no_verdict()
    {
        await StoreAsync(Nightly("Sales", Monday, 118, 120, 119, 121));

        Assert.Null(await CheckAsync(Detector(minimumSamples: 5), Backup("Sales", Monday, 10)));
        Assert.NotNull(await CheckAsync(Detector(minimumSamples: 4), Backup("Sales", Monday, 10)));
    }

    [Fact]
    public async Task Only_the_most_recent_window_forms_the_baseline()
    {
        // A month of slow backups before the storage upgrade, then ten fast ones: the old ones are out of the window.
        await StoreAsync(Nightly("Sales", Monday.AddDays(-10), [.. Enumerable.Repeat(40.0, 20)]));
        await StoreAsync(Nightly("Sales", Monday, TenNights));

        var regression = await CheckAsync(Detector(), Backup("Sales", Monday, 50));

        Assert.Equal(118, regression?.MedianMBps);
    }

    [Fact]
    public async Task Other_databases_scopes_kinds_instances_and_failed_runs_are_not_compared()
    {
        await StoreAsync(Nightly("HR", Monday, TenNights));
        await StoreAsync(Nightly("Sales", Monday, TenNights).Select(r => r with { Scope = OperationScope.Log }));
        await StoreAsync(Nightly("Sales", Monday, TenNights).Select(r => r with { Kind = OperationKind.Restore }));
        await StoreAsync(Nightly("Sales", Monday, TenNights), instance: "test");
        await StoreAsync(Nightly("Sales", Monday, TenNights).Select(r => r with { Status = OperationStatus.Failed }));

        Assert.Null(await CheckAsync(Detector(), Backup("Sales", Monday, 10)));
    }

    [Fact]
    public async Task Operations_after_the_one_checked_are_not_its_baseline()
    {
        await StoreAsync(Nightly("Sales", Monday.AddDays(20), TenNights));

        Assert.Null(await CheckAsync(Detector(), Backup("Sales", Monday, 10)));
    }

    [Fact]
    public async Task A_failed_backup_is_not_judged_on_throughput()
    {
        await StoreAsync(Nightly("Sales", Monday, TenNights));

        Assert.Null(await CheckAsync(Detector(), Backup("Sales", Monday, 10, status: OperationStatus.Failed)));
    }
}
