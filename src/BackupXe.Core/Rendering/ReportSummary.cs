using BackupXe.Core.Analysis;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// What the end of a streamed report says about all its operations: counts by status and by bottleneck.
/// Fixed size, whatever the number of operations.
/// </summary>
public sealed class ReportSummary
{
    private readonly int[] _byStatus = new int[Enum.GetValues<OperationStatus>().Length];
    private readonly int[] _byBottleneck = new int[Enum.GetValues<Bottleneck>().Length];

    public int Operations { get; private set; }

    public void Add(OperationReport report)
    {
        Operations++;
        _byStatus[(int)report.Status]++;
        if (report.Verdict is { } verdict)
        {
            _byBottleneck[(int)verdict.Bottleneck]++;
        }
    }

    public int WithStatus(OperationStatus status) => _byStatus[(int)status];

    /// <summary>Bottlenecks named at least once, most frequent first.</summary>
    public IReadOnlyList<BottleneckCount> Bottlenecks()
        => Enum.GetValues<Bottleneck>()
            .Where(b => _byBottleneck[(int)b] > 0)
            .Select(b => new BottleneckCount(b, _byBottleneck[(int)b]))
            .OrderByDescending(c => c.Operations)
            .ThenBy(c => c.Bottleneck)
            .ToList();

    public SummaryReport ToReport(AnalysisFindings findings)
        => new(
            Operations,
            WithStatus(OperationStatus.Completed),
            WithStatus(OperationStatus.Failed),
            WithStatus(OperationStatus.Incomplete),
            Bottlenecks(),
            findings.UnattributedWaits,
            findings.AmbiguousWaits,
            findings.OrphanMessages);
}

/// <summary>The <c>summary</c> object at the end of the JSON report (docs/json-schema.md).</summary>
public sealed record SummaryReport(
    int Operations,
    int Completed,
    int Failed,
    int Incomplete,
    IReadOnlyList<BottleneckCount> Bottlenecks,
    long UnattributedWaits,
    IReadOnlyList<WaitReport> AmbiguousWaits,
    long OrphanMessages);

/// <summary>How many operations a bottleneck was named for.</summary>
public sealed record BottleneckCount(Bottleneck Bottleneck, int Operations);
