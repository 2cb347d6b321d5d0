using BackupXe.Core.Reporting;
using BackupXe.Tests.Support;
using BackupXe.Worker.Telemetry;
using Xunit;
using static BackupXe.Tests.Worker.Operations;

namespace BackupXe.Tests.Worker.Telemetry;

public sealed class BackupXeMetricsTests : IDisposable
{
    private readonly BackupXeMetrics _metrics = new();
    private readonly RecordedMeasurements _recorded;

    // Only this test's meter: other tests create their own BackupXe meters in parallel.
    public BackupXeMetricsTests() => _recorded = new RecordedMeasurements(_metrics.Meter);

    private IReadOnlyList<RecordedMeasurement> Measurements => _recorded.All;

    public void Dispose()
    {
        _recorded.Dispose();
        _metrics.Dispose();
    }

    [Fact]
    public void A_completed_backup_is_counted_by_kind_status_and_bottleneck_without_database()
    {
        _metrics.RecordOperation("prod", Backup("Sales", Monday, 41.5, sessionId: 57));

        var counted = Assert.Single(Measurements, m => m.Instrument == "backupxe.operations");
        Assert.Equal(1, counted.Value);
        Assert.Equal(
            new Dictionary<string, string?> { ["instance"] = "prod", ["kind"] = "backup", ["status"] = "completed", ["bottleneck"] = "buffer-starved" },
            counted.Tags);
    }

    [Fact]
    public void Duration_and_throughput_are_recorded_in_seconds_and_megabytes_per_second()
    {
        _metrics.RecordOperation("prod", Backup("Sales", Monday, 41.5));

        var duration = Assert.Single(Measurements, m => m.Instrument == "backupxe.operation.duration");
        var throughput = Assert.Single(Measurements, m => m.Instrument == "backupxe.operation.throughput");
        Assert.Equal(("s", 120.0), (duration.Unit, duration.Value));
        Assert.Equal(("MBy/s", 41.5), (throughput.Unit, throughput.Value));
        Assert.All([duration, throughput], m => Assert.Equal(["instance", "kind"], m.Tags.Keys.Order()));
    }

    [Fact]
    public void A_failed_operation_is_counted_but_its_partial_numbers_are_not_recorded()
    {
        _metrics.RecordOperation("prod", Backup("Sales", Monday, 3, status: OperationStatus.Failed, bottleneck: Bottleneck.Unknown));

        var counted = Assert.Single(Measurements);
        Assert.Equal("backupxe.operations", counted.Instrument);
        Assert.Equal(("failed", "unknown"), (counted.Tags["status"], counted.Tags["bottleneck"]));
    }

    [Fact]
    public void An_operation_without_a_verdict_has_the_unknown_bottleneck()
    {
        _metrics.RecordOperation("prod", Backup("Sales", Monday, 50) with { Verdict = null });

        Assert.Equal("unknown", Assert.Single(Measurements, m => m.Instrument == "backupxe.operations").Tags["bottleneck"]);
    }

    [Fact]
    public void Events_reconnects_drops_and_regressions_are_counted_per_instance()
    {
        _metrics.RecordEventReceived("prod");
        _metrics.RecordEventReceived("prod");
        _metrics.RecordReconnect("prod");
        _metrics.RecordEventsDropped("prod", 12);
        _metrics.RecordRegression("prod", Backup("Sales", Monday, 41));

        Assert.Equal(2, Measurements.Where(m => m.Instrument == "backupxe.events.received").Sum(m => m.Value));
        Assert.Equal(1, Measurements.Single(m => m.Instrument == "backupxe.live.reconnects").Value);
        Assert.Equal(12, Measurements.Single(m => m.Instrument == "backupxe.events.dropped").Value);
        var regression = Measurements.Single(m => m.Instrument == "backupxe.regressions");
        Assert.Equal(new Dictionary<string, string?> { ["instance"] = "prod", ["kind"] = "backup" }, regression.Tags);
    }
}
