using System.Diagnostics.Metrics;

namespace BackupXe.Tests.Support;

/// <summary>One measurement a test saw: its instrument, unit, value and tags as text.</summary>
internal sealed record RecordedMeasurement(string Instrument, string? Unit, double Value, Dictionary<string, string?> Tags)
{
    /// <summary>The tag's value, or null when the measurement has no such tag.</summary>
    public string? Tag(string key) => Tags.GetValueOrDefault(key);
}

/// <summary>
/// What one meter measures while a test runs, in the order measured; only that meter, because other tests create
/// their own BackupXe meters in parallel. Integer, long and double instruments alike.
/// </summary>
internal sealed class RecordedMeasurements : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly List<RecordedMeasurement> _measurements = [];

    /// <param name="instruments">Which of the meter's instruments are recorded; null for all.</param>
    public RecordedMeasurements(Meter meter, Func<string, bool>? instruments = null)
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter == meter && (instruments is null || instruments(instrument.Name)))
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.Start();
    }

    /// <summary>Every measurement so far.</summary>
    public IReadOnlyList<RecordedMeasurement> All
    {
        get
        {
            lock (_measurements)
            {
                return [.. _measurements];
            }
        }
    }

    /// <summary>The measurements of one instrument so far.</summary>
    public IReadOnlyList<RecordedMeasurement> Of(string instrument) => [.. All.Where(m => m.Instrument == instrument)];

    /// <summary>Forgets what was recorded: the next step's measurements alone.</summary>
    public void Clear()
    {
        lock (_measurements)
        {
            _measurements.Clear();
        }
    }

    /// <summary>Reads the observable instruments (gauges read on collection) now, as an exporter would.</summary>
    public void RecordObservableInstruments() => _listener.RecordObservableInstruments();

    public void Dispose() => _listener.Dispose();

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var values = new Dictionary<string, string?>();
        foreach (var tag in tags)
        {
            values[tag.Key] = tag.Value?.ToString();
        }

        lock (_measurements)
        {
            _measurements.Add(new RecordedMeasurement(instrument.Name, instrument.Unit, value, values));
        }
    }
}
