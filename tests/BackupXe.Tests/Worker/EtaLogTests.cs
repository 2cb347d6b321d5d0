using System.Diagnostics.Metrics;
using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.History;
using BackupXe.Sources;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog;
using Serilog.Core;
using Serilog.Events;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The daemon's live ETA: the sample backup (samples/buffer-starved-backup.xml: [SalesDB], 2 GiB, percent lines every
/// 120 ms from 01:30:00.545) replayed through <see cref="InstanceMonitor"/> and the production analyzer on a
/// <see cref="FakeClock"/>, against the generated history of instance SQL01 (<see cref="AnalyzeHistoryTests"/>: ten
/// usual nights of 2 GiB at 490 to 520 MB/s). The gauge is read at the moment each ETA event is logged.
/// </summary>
public sealed class EtaLogTests : IDisposable
{
    private const double SizeMiB = 2048;

    // A TimeSpan holds 100 ns ticks, so a figure made a TimeSpan is that close to the arithmetic.
    private const double Tick = 1e-7;

    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly GaugeAtLog _gauge;
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly FakeClock _time = new();

    public EtaLogTests()
    {
        _gauge = new GaugeAtLog(_metrics);
        _loggers = new SerilogLoggerFactory(
            new LoggerConfiguration().MinimumLevel.Verbose().WriteTo.Sink(_gauge).WriteTo.Sink(_log).CreateLogger(), dispose: true);
    }

    public void Dispose()
    {
        _loggers.Dispose();
        _gauge.Dispose();
        _metrics.Dispose();
        _directory.Dispose();
    }

    private async Task RunAsync(string capture, bool withHistory)
    {
        var path = _directory.File("history.db");
        if (withHistory)
        {
            await AnalyzeHistoryTests.WriteHistoryAsync(path);
        }

        var options = Options.Create(new BackupXeOptions { Instances = [new InstanceOptions { Name = "SQL01", ReplayPath = capture }] });
        var history = new SqliteHistoryStore(path, _time);
        await history.InitializeAsync(CancellationToken.None);
        var detector = new StoredBaselines(history, options.Value.Regression.ToComparisonSettings());
        var recorder = new OperationRecorder(history, detector, _metrics, _loggers.CreateLogger<OperationRecorder>());
        var monitor = new InstanceMonitor(
            options.Value.Instances[0], new ScriptedSourceFactory((_, _) => InputSources.Open(capture)), new SessionOperationAnalyzer(), recorder, _metrics, _time,
            TimeSpan.FromSeconds(30), _loggers.CreateLogger<InstanceMonitor>(), TimeSpan.FromMinutes(5), paces: detector);
        await monitor.RunAsync(CancellationToken.None);
    }

    private static double Number(LogEvent logEvent, string name) => Convert.ToDouble(logEvent.Scalar(name), CultureInfo.InvariantCulture);

    [Fact]
    public async Task The_ETA_comes_from_the_usual_pace_in_the_history_until_the_backups_own_readings_give_one()
    {
        // When
        await RunAsync(CliRun.Sample("buffer-starved-backup.xml"), withHistory: true);

        // Then: three ETA events, each as the gauge showed it then
        var etas = _log.WithEventId(184);
        Assert.Equal(3, etas.Count);
        Assert.All(etas, e => Assert.Equal("SalesDB", e.Scalar("Database")));
        Assert.All(etas, e => Assert.Equal("SQL01", e.Scalar("Instance")));

        // (1) before the size is known: the usual nights' 10th to 90th percentile durations (2048 MiB at 515.5 and
        // 494.5 MB/s, interpolated between the durations at 520 and 515, 495 and 490) less the time run
        var durations = new[] { 490.0, 495, 498, 500, 502, 505, 508, 510, 515, 520 }.Select(rate => SizeMiB / rate).Order().ToArray();
        var fastest = durations[0] + ((durations[1] - durations[0]) * 0.9);
        var slowest = durations[8] + ((durations[9] - durations[8]) * 0.1);
        Assert.StartsWith("from history: the usual ", (string)etas[0].Scalar("EtaBasis")!, StringComparison.Ordinal);
        Assert.EndsWith(" of 10 runs, less the time run", (string)etas[0].Scalar("EtaBasis")!, StringComparison.Ordinal);
        var run = fastest - Number(etas[0], "RemainingLowSeconds");
        Assert.InRange(run, 0, 0.5);
        Assert.Equal(slowest - run, Number(etas[0], "RemainingHighSeconds"), 2 * Tick);

        // (2) the engine's estimate (2147483648 bytes) read and nothing copied: the size at the usual 515.5 to 494.5 MB/s
        Assert.Equal("from history: its size at the usual 495 to 516 MB/s of 10 runs", etas[1].Scalar("EtaBasis"));
        Assert.Equal(SizeMiB / 515.5, Number(etas[1], "RemainingLowSeconds"), Tick);
        Assert.Equal(SizeMiB / 494.5, Number(etas[1], "RemainingHighSeconds"), Tick);

        // (3) at the third percent line (3 percent, 63963136 bytes at 00.785): its own interval takes over
        Assert.Equal("from its progress", etas[2].Scalar("EtaBasis"));
        Assert.Equal(3, etas[2].Scalar("Percent"));
        OwnInterval(etas[2]);

        // The gauge showed each of them as it was logged, under the instance and kind, never the database
        Assert.Equal(3, _gauge.Seen.Count);
        for (var i = 0; i < 3; i++)
        {
            Assert.Equal([("SQL01", "backup", "low", Number(etas[i], "RemainingLowSeconds")), ("SQL01", "backup", "high", Number(etas[i], "RemainingHighSeconds"))], _gauge.Seen[i]);
        }

        // and nothing once the replay ended
        Assert.Empty(_gauge.Now());
    }

    [Fact]
    public async Task Without_a_history_the_first_ETA_is_the_backups_own_at_its_third_reading()
    {
        // When
        await RunAsync(CliRun.Sample("buffer-starved-backup.xml"), withHistory: false);

        // Then
        var eta = Assert.Single(_log.WithEventId(184));
        Assert.Equal("from its progress", eta.Scalar("EtaBasis"));
        OwnInterval(eta);
    }

    [Fact]
    public async Task A_stall_is_logged_with_the_ETA_it_was_named_at()
    {
        // Given: no byte for 7 minutes after 40 percent; read as fast as possible, the stall is named once the 41 percent
        // line arrives, 7 min later
        var capture = GappedCapture.XeXml(CliRun.Sample("buffer-starved-backup.xml"), "40 percent", TimeSpan.FromMinutes(7), _directory.Path);

        // When
        await RunAsync(capture, withHistory: false);

        // Then: the ETA then is the backup's own: 1267728384 bytes left at its whole-copy rate (879755264 bytes in 425.345 -
        // 0.423 s) and at its latest rate (the last 4 intervals: 41 percent over 37 percent, 85983232 bytes in 420.48 s)
        var stall = Assert.Single(_log.WithEventId(180));
        const double left = 2147483648.0 - 879755264;
        var whole = left / (879755264 / (425.345 - 0.423));
        var latest = left / ((879755264.0 - 793772032) / (425.345 - 4.865));
        Assert.Equal(Math.Min(whole, latest), Number(stall, "RemainingLowSeconds"), 3);
        Assert.Equal(Math.Max(whole, latest), Number(stall, "RemainingHighSeconds"), 3);
        Assert.Equal("from its progress", stall.Scalar("EtaBasis"));
        Assert.EndsWith(
            $"; ETA {Figures.Duration(Math.Min(whole, latest))} to {Figures.Duration(Math.Max(whole, latest))} (from its progress)",
            stall.RenderMessage(CultureInfo.InvariantCulture).Replace("\"", "", StringComparison.Ordinal), StringComparison.Ordinal);
    }

    /// <summary>
    /// The interval at the third percent line: the 2083520512 bytes left at the rate since the copy began (63963136 bytes
    /// in 0.785 - 0.423 s) and at the rate over the last two intervals (42991616 bytes from 0.545 to 0.785 s).
    /// </summary>
    private static void OwnInterval(LogEvent eta)
    {
        const double left = 2147483648.0 - 63963136;
        var whole = left / (63963136 / (0.785 - 0.423));
        var latest = left / ((63963136.0 - 20971520) / (0.785 - 0.545));
        Assert.Equal(Math.Min(whole, latest), Number(eta, "RemainingLowSeconds"), 3);
        Assert.Equal(Math.Max(whole, latest), Number(eta, "RemainingHighSeconds"), 3);
    }

    /// <summary>The <c>backupxe.live.remaining.longest</c> measurements, read whenever an ETA event (184) is logged.</summary>
    private sealed class GaugeAtLog : ILogEventSink, IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly List<(string, string, string, double)> _current = [];
        private readonly List<IReadOnlyList<(string Instance, string Kind, string Bound, double Seconds)>> _seen = [];

        public GaugeAtLog(BackupXeMetrics metrics)
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter == metrics.Meter && instrument.Name == "backupxe.live.remaining.longest")
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<double>((_, value, tags, _) =>
            {
                var found = new Dictionary<string, object?>();
                foreach (var tag in tags)
                {
                    found[tag.Key] = tag.Value;
                }

                Assert.Equal(["bound", "instance", "kind"], found.Keys.Order());
                _current.Add(((string)found["instance"]!, (string)found["kind"]!, (string)found["bound"]!, value));
            });
            _listener.Start();
        }

        public IReadOnlyList<IReadOnlyList<(string Instance, string Kind, string Bound, double Seconds)>> Seen => _seen;

        public IReadOnlyList<(string, string, string, double)> Now()
        {
            lock (_current)
            {
                _current.Clear();
                _listener.RecordObservableInstruments();
                return [.. _current];
            }
        }

        public void Emit(LogEvent logEvent)
        {
            if (logEvent.Properties.TryGetValue("EventId", out var id) && id is StructureValue structure
                && structure.Properties.Any(p => p.Name == "Id" && p.Value.ToString() == "184"))
            {
                _seen.Add(Now());
            }
        }

        public void Dispose() => _listener.Dispose();
    }
}
