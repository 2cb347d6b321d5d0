using System.Diagnostics.Metrics;
using BackupXe.Worker.Telemetry;

namespace BackupXe.Tests.Worker;

/// <summary>The quiet periods the daemon counted on <c>backupxe.live.quiet_periods</c>, as "kind phase", in order.</summary>
internal sealed class QuietPeriodCounts : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly List<string> _counted = [];

    public QuietPeriodCounts(BackupXeMetrics metrics)
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter == metrics.Meter && instrument.Name == "backupxe.live.quiet_periods")
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((_, _, tags, _) =>
        {
            var found = new Dictionary<string, object?>();
            foreach (var tag in tags)
            {
                found[tag.Key] = tag.Value;
            }

            lock (_counted)
            {
                _counted.Add($"{found["kind"]} {found["phase"]}");
            }
        });
        _listener.Start();
    }

    public IReadOnlyList<string> Counted
    {
        get
        {
            lock (_counted)
            {
                return [.. _counted];
            }
        }
    }

    public void Dispose() => _listener.Dispose();
}
