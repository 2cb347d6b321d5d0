using System.Globalization;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;

namespace BackupXe.Core.Baselines;

/// <summary>
/// A history read once (every stored run, imported and captured, folded per instance) that analysed operations are
/// set against as they complete. Memory follows the history's rows, which the file already bounds.
/// </summary>
public sealed class BaselineContext : IUsualPaces
{
    private readonly Dictionary<string, List<ComparableRun>> _byInstance;
    private readonly string? _instance;
    private readonly BaselineComparisonSettings _settings;
    private readonly IReadOnlyList<TuneRecord> _tunes;

    /// <param name="instance">The instance the analysed operations ran on; null to find it from the database's name.</param>
    /// <param name="tunes">The history's tune runs: a full backup is shown beside its database's latest tune before it.</param>
    public BaselineContext(IEnumerable<InstanceOperation> records, string? instance, BaselineComparisonSettings settings, IReadOnlyList<TuneRecord>? tunes = null)
    {
        _tunes = tunes ?? [];
        _byInstance = records
            .GroupBy(r => r.Instance, StringComparer.OrdinalIgnoreCase)
            .ToDictionary(g => g.Key, g => g.Select(r => ComparableRun.Of(r.Record)).ToList(), StringComparer.OrdinalIgnoreCase);
        _instance = instance;
        _settings = settings;
    }

    /// <summary>
    /// The report with its <see cref="OperationReport.History"/> set: the comparison, or, for an operation that cannot be
    /// placed in a series (no kind, no time), a "cannot tell" that says why in one line.
    /// </summary>
    public OperationReport Attach(OperationReport report)
    {
        if (ComparableRun.Of(report) is not { } current)
        {
            return report with { History = Unplaced(report) };
        }

        var history = Compare(current);
        return report with { History = LastTune(report, history.Instance) is { } tune ? history with { LastTune = tune } : history };
    }

    /// <summary>
    /// How a running operation's series usually goes on its instance (the one named, else the one instance holding the
    /// series); null when no single instance holds it or its usual runs are too few.
    /// </summary>
    public UsualPace? Pace(Events.OperationKind kind, Events.OperationScope? scope, string? database, DateTime start, IReadOnlyList<string> devices)
    {
        var current = ComparableRun.Running(kind, scope, database, start, devices);
        List<string> holding = _instance is { } named
            ? (_byInstance.ContainsKey(named) ? [named] : [])
            : _byInstance.Where(pair => pair.Value.Any(r => r.SameSeries(current))).Select(pair => pair.Key).ToList();
        return holding.Count == 1 ? UsualPace.Of(current, _byInstance[holding[0]], _settings) : null;
    }

    /// <inheritdoc/>
    public Task<UsualPace?> PaceAsync(Events.OperationKind kind, Events.OperationScope? scope, string? database, DateTime start, IReadOnlyList<string> devices)
        => Task.FromResult(Pace(kind, scope, database, start, devices));

    /// <summary>The latest tune of a full backup's database on its instance that finished before the backup started.</summary>
    private TuneRecord? LastTune(OperationReport report, string? instance)
        => report is { Kind: Events.OperationKind.Backup, Scope: Events.OperationScope.Database, Database: { } database, Start: { } start } && instance is not null
            ? _tunes
                .Where(t => t.Instance.Equals(instance, StringComparison.OrdinalIgnoreCase) && t.Database.Equals(database, StringComparison.OrdinalIgnoreCase) && t.TunedAt < start)
                .MaxBy(t => t.TunedAt)
            : null;

    private BaselineComparisonReport Compare(ComparableRun current)
    {
        if (_instance is { } named)
        {
            return _byInstance.TryGetValue(named, out var runs)
                ? BaselineComparer.Compare(current, named, runs, _settings)
                : NoInstance(current, named, $"the history holds no run of instance {named}");
        }

        var holding = _byInstance
            .Where(pair => pair.Value.Any(r => r.SameSeries(current)))
            .Select(pair => pair.Key)
            .Order(StringComparer.OrdinalIgnoreCase)
            .ToList();
        return holding.Count switch
        {
            1 => BaselineComparer.Compare(current, holding[0], _byInstance[holding[0]], _settings),
            0 => NoInstance(current, null, "too few runs: the history holds no run of this series"),
            _ => NoInstance(current, null, string.Create(
                CultureInfo.InvariantCulture,
                $"the history holds this series on {holding.Count} instances ({string.Join(", ", holding)}); name one with --instance")),
        };
    }

    // Never silent: a DBA who asked for --history learns why this operation got no comparison.
    private static BaselineComparisonReport Unplaced(OperationReport report)
    {
        var reason = report.Kind == Events.OperationKind.Unknown
            ? "the input does not say whether it was a backup or a restore, so it belongs to no series"
            : "the input gives it no clock time (neither the server's nor the client's), so it cannot be placed among its series' runs";
        return new BaselineComparisonReport
        {
            Series = report.Kind == Events.OperationKind.Unknown
                ? $"operation on [{report.Database ?? "?"}]"
                : $"{ComparableRun.Describe(report.Kind, report.Scope ?? Events.OperationScope.Database)} of [{report.Database ?? "?"}]",
            Verdict = BaselineVerdict.CannotTell,
            Reason = reason,
            Summary = $"cannot tell against its history: {reason}",
            ThroughputMBps = report.ThroughputMBps,
        };
    }

    private static BaselineComparisonReport NoInstance(ComparableRun current, string? instance, string reason) => new()
    {
        Instance = instance,
        Series = BaselineComparer.SeriesName(current),
        TargetType = current.TargetType,
        Verdict = BaselineVerdict.CannotTell,
        Reason = reason,
        Summary = $"cannot tell against its history: {reason}",
        ThroughputMBps = current.ThroughputMBps,
        Targets = current.Targets,
    };
}
