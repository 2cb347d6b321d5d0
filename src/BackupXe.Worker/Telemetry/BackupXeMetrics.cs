using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using BackupXe.Core.Formatting;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.Telemetry;

/// <summary>
/// The daemon's instruments (docs/metrics.md). Tags stay low-cardinality: the configured instance name and
/// kebab-case vocabulary only, never a database name, session id or timestamp.
/// </summary>
internal sealed class BackupXeMetrics : IDisposable
{
    public const string MeterName = "BackupXe";

    private readonly Counter<long> _operations;
    private readonly Histogram<double> _duration;
    private readonly Histogram<double> _throughput;
    private readonly Counter<long> _bytes;
    private readonly Counter<long> _eventsReceived;
    private readonly Counter<long> _reconnects;
    private readonly Counter<long> _eventsDropped;
    private readonly Counter<long> _regressions;
    private readonly Counter<long> _quietPeriods;
    private readonly Gauge<double> _longestRestore;
    private readonly Gauge<int> _outOfTarget;
    private readonly Gauge<double> _worstRpo;
    private readonly Gauge<double> _databaseRpo;
    private readonly Gauge<int> _databaseOutOfTarget;
    private readonly Histogram<double> _drillDuration;
    private readonly Counter<long> _drills;
    private readonly TimeProvider _time;

    // Per instance and drilled database (the configured list, at most RestoreDrillsOptions.MaxDatabases each): the last completed drill's start.
    private readonly ConcurrentDictionary<(string Instance, string Database), DateTime> _lastDrillSuccess = new();

    // Per instance, the running operations' ETAs as the last progress update left them; read when a listener collects.
    private readonly ConcurrentDictionary<string, IReadOnlyList<(string Kind, double Low, double High)>> _remaining = new(StringComparer.Ordinal);

    public BackupXeMetrics(TimeProvider? time = null)
    {
        _time = time ?? TimeProvider.System;
        Meter = new Meter(MeterName);
        _operations = Meter.CreateCounter<long>("backupxe.operations", "{operation}", "Backups and restores analysed.");
        _duration = Meter.CreateHistogram<double>("backupxe.operation.duration", "s", "Duration of analysed operations.");
        _throughput = Meter.CreateHistogram<double>("backupxe.operation.throughput", "MBy/s", "Throughput of analysed operations.");
        // A byte count, not a rate: rate() over it is the bytes per second a dashboard plots (docs/metrics.md).
        _bytes = Meter.CreateCounter<long>("backupxe.operation.io", "By", "Bytes read or written by completed operations.");
        _eventsReceived = Meter.CreateCounter<long>("backupxe.events.received", "{event}", "Trace events read from sources.");
        _reconnects = Meter.CreateCounter<long>("backupxe.live.reconnects", "{reconnect}", "Times a failed source was opened again.");
        _eventsDropped = Meter.CreateCounter<long>("backupxe.events.dropped", "{event}", "Events a source reported it had to drop.");
        _quietPeriods = Meter.CreateCounter<long>("backupxe.live.quiet_periods", "{period}", "Running operations that moved no bytes for the stall limit: stalls and expected waits.");
        _regressions = Meter.CreateCounter<long>("backupxe.regressions", "{operation}", "Operations below their recent median throughput.");
        Meter.CreateObservableGauge("backupxe.live.remaining.longest", ObserveRemaining, "s", "The longest ETA of an instance's running operations of a kind, fastest and slowest bound.");
        _longestRestore = Meter.CreateGauge<double>("backupxe.restore.estimate.longest", "s", "The longest restore estimate of an instance's databases, fastest and slowest bound.");
        // Per instance and target, not per database: the series stay as many as the instances however many databases (docs/fleet.md).
        _outOfTarget = Meter.CreateGauge<int>("backupxe.fleet.out_of_target", "{database}", "An instance's databases past their RPO or RTO target.");
        _worstRpo = Meter.CreateGauge<double>("backupxe.fleet.rpo.worst", "s", "The oldest newest-restore-point of an instance's databases: its worst RPO.");
        // Opt-in and capped per instance (Targets:DatabaseSeries, MaxDatabaseSeries): instances x the cap at most.
        _databaseRpo = Meter.CreateGauge<double>("backupxe.fleet.database.rpo", "s", "A chosen database's RPO: the time since its newest restore point.");
        _databaseOutOfTarget = Meter.CreateGauge<int>("backupxe.fleet.database.out_of_target", "{database}", "Whether a chosen database is past its RPO or RTO target: 1 past, 0 not.");
        _drillDuration = Meter.CreateHistogram<double>("backupxe.restore.drill.duration", "s", "Restore drills' time per phase, and their restore and recovery.");
        _drills = Meter.CreateCounter<long>("backupxe.restore.drills", "{drill}", "Restore drills run by the daemon, by outcome.");
        Meter.CreateObservableGauge("backupxe.restore.drill.last_success.age", ObserveDrillAge, "s", "Time since the start of a drilled database's last completed restore drill.");
    }

    public Meter Meter { get; }

    public void RecordOperation(string instance, OperationReport report)
    {
        var tags = new TagList
        {
            { "instance", instance },
            { "kind", Kebab.Of(report.Kind) },
            { "status", Kebab.Of(report.Status) },
            { "bottleneck", Kebab.Of(report.Verdict?.Bottleneck ?? Bottleneck.Unknown) },
        };
        _operations.Add(1, tags);

        // Duration and throughput only mean something for an operation that ran to its end.
        if (report.Status != OperationStatus.Completed)
        {
            return;
        }

        var measureTags = new TagList { { "instance", instance }, { "kind", Kebab.Of(report.Kind) } };
        if (report.DurationSeconds is { } seconds)
        {
            _duration.Record(seconds, measureTags);
        }

        if (report.BytesProcessed is { } bytes and >= 0)
        {
            _bytes.Add(bytes, measureTags);
        }

        if (report.ThroughputMBps is { } throughput)
        {
            _throughput.Record(throughput, measureTags);
        }
    }

    public void RecordEventReceived(string instance) => _eventsReceived.Add(1, new KeyValuePair<string, object?>("instance", instance));

    public void RecordReconnect(string instance) => _reconnects.Add(1, new KeyValuePair<string, object?>("instance", instance));

    /// <summary>For sources that shed events under back-pressure (the live source's bounded buffer).</summary>
    public void RecordEventsDropped(string instance, long count) => _eventsDropped.Add(count, new KeyValuePair<string, object?>("instance", instance));

    public void RecordRegression(string instance, OperationReport report)
        => _regressions.Add(1, new TagList { { "instance", instance }, { "kind", Kebab.Of(report.Kind) } });

    /// <summary>Once per quiet period of a running operation (docs/live.md): kind stall or expected-wait, and the phase.</summary>
    public void RecordQuietPeriod(string instance, QuietPeriod quiet)
        => _quietPeriods.Add(1, new TagList { { "instance", instance }, { "kind", Kebab.Of(quiet.Kind) }, { "phase", quiet.Phase ?? "none" } });

    /// <summary>After each history import: the instance's longest restore estimate (docs/restore-chain.md), as its two bounds.</summary>
    public void RecordLongestRestoreEstimate(string instance, double lowSeconds, double highSeconds)
    {
        _longestRestore.Record(lowSeconds, new TagList { { "instance", instance }, { "bound", "low" } });
        _longestRestore.Record(highSeconds, new TagList { { "instance", instance }, { "bound", "high" } });
    }

    /// <summary>
    /// After each progress update of an instance: the ETA interval of each running operation that has one (docs/live.md,
    /// "The ETA"), of which <c>backupxe.live.remaining.longest</c> reports, per kind, the operation with the slowest bound.
    /// </summary>
    /// <summary>An instance's compliance as last judged: how many databases are past each target, and the worst RPO when any has one.</summary>
    public void RecordCompliance(string instance, IReadOnlyCollection<Core.Fleet.DatabaseCompliance> databases)
    {
        _outOfTarget.Record(databases.Count(d => d.Rpo.State == Core.Fleet.ComplianceState.Outside), new TagList { { "instance", instance }, { "target", "rpo" } });
        _outOfTarget.Record(databases.Count(d => d.Rto.State == Core.Fleet.ComplianceState.Outside), new TagList { { "instance", instance }, { "target", "rto" } });
        if (databases.Where(d => d.Rpo.Value is not null).Select(d => d.Rpo.Value!.Value.TotalSeconds).DefaultIfEmpty(double.NaN).Max() is var worst && !double.IsNaN(worst))
        {
            _worstRpo.Record(worst, new KeyValuePair<string, object?>("instance", instance));
        }
    }

    /// <summary>
    /// Series of their own for the databases whose name matches <paramref name="pattern"/>, the first <paramref name="max"/>
    /// by name (the rest get none): the RPO when it has one, and past-target (1 or 0) per target.
    /// </summary>
    public void RecordDatabases(string instance, IReadOnlyCollection<Core.Fleet.DatabaseCompliance> databases, string pattern, int max)
    {
        var chosen = databases.Where(d => Core.Fleet.NamePattern.Matches(pattern, d.Database))
            .OrderBy(d => d.Database, StringComparer.OrdinalIgnoreCase)
            .Take(max);
        foreach (var database in chosen)
        {
            if (database.Rpo.Value is { } rpo)
            {
                _databaseRpo.Record(rpo.TotalSeconds, new TagList { { "instance", instance }, { "database", database.Database } });
            }

            _databaseOutOfTarget.Record(database.Rpo.State == Core.Fleet.ComplianceState.Outside ? 1 : 0, new TagList { { "instance", instance }, { "database", database.Database }, { "target", "rpo" } });
            _databaseOutOfTarget.Record(database.Rto.State == Core.Fleet.ComplianceState.Outside ? 1 : 0, new TagList { { "instance", instance }, { "database", database.Database }, { "target", "rto" } });
        }
    }

    /// <summary>
    /// After each daemon drill: its outcome, and each phase's time (the log restores summed, as the report's by-phase
    /// table) plus the measured restore and recovery; a completed one becomes its database's last success.
    /// </summary>
    public void RecordDrill(string instance, Core.Drill.RestoreDrillResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var status = Kebab.Of(result.Status);
        _drills.Add(1, new TagList { { "instance", instance }, { "status", status } });
        foreach (var (phase, seconds, _) in result.ByPhase())
        {
            _drillDuration.Record(seconds, new TagList { { "instance", instance }, { "phase", phase.Replace(' ', '-') }, { "status", status } });
        }

        if (result.Phases.Any(p => Core.Drill.RestoreDrillResult.IsRestore(p.Phase)))
        {
            _drillDuration.Record(result.RestoreSeconds, new TagList { { "instance", instance }, { "phase", "restore-and-recovery" }, { "status", status } });
        }

        if (result.Status == Core.Drill.DrillStatus.Completed)
        {
            RecordDrillSuccess(instance, result.Plan.Database, result.StartedUtc);
        }
    }

    /// <summary>A refused plan: counted, no phase ran.</summary>
    public void RecordDrillRefused(string instance) => _drills.Add(1, new TagList { { "instance", instance }, { "status", "refused" } });

    /// <summary>The start of a database's last completed drill (from the history at start-up, then from each drill).</summary>
    public void RecordDrillSuccess(string instance, string database, DateTime startedUtc)
        => _lastDrillSuccess.AddOrUpdate((instance, database), startedUtc, (_, known) => startedUtc > known ? startedUtc : known);

    private IEnumerable<Measurement<double>> ObserveDrillAge()
    {
        var now = _time.GetUtcNow().UtcDateTime;
        foreach (var ((instance, database), last) in _lastDrillSuccess)
        {
            yield return new Measurement<double>(Math.Max(0, (now - last).TotalSeconds), new TagList { { "instance", instance }, { "database", database } });
        }
    }

    public void RecordRunning(string instance, IReadOnlyList<OperationProgress> running)
        => _remaining[instance] = running
            .Where(op => op.RemainingRange is not null)
            .Select(op => (Kebab.Of(op.Kind), op.RemainingRange!.Value.Low.TotalSeconds, op.RemainingRange.Value.High.TotalSeconds))
            .ToList();

    /// <summary>The instance's source has ended: its operations run no more as far as the daemon can tell.</summary>
    public void ForgetRunning(string instance) => _remaining.TryRemove(instance, out _);

    private IEnumerable<Measurement<double>> ObserveRemaining()
    {
        foreach (var (instance, running) in _remaining)
        {
            foreach (var kind in running.GroupBy(op => op.Kind, StringComparer.Ordinal))
            {
                var longest = kind.MaxBy(op => op.High);
                yield return new Measurement<double>(longest.Low, new TagList { { "instance", instance }, { "kind", kind.Key }, { "bound", "low" } });
                yield return new Measurement<double>(longest.High, new TagList { { "instance", instance }, { "kind", kind.Key }, { "bound", "high" } });
            }
        }
    }

    public void Dispose() => Meter.Dispose();
}
