using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// Per-wait-type totals for one operation. Memory grows with the number of wait types (a handful), never
/// with the number of wait events, so a million BACKUPBUFFER waits cost the same as one.
/// </summary>
public sealed class WaitAccumulator
{
    private readonly Dictionary<string, Totals> _byType = new(StringComparer.OrdinalIgnoreCase);

    // The two wait types added last and their totals: a .xel source gives every wait of a type the same string, and
    // waits of one type come in runs broken by another (BACKUPBUFFER by BACKUPIO), so most adds need no hashing of the
    // name.
    private string? _lastType;
    private Totals? _lastTotals;
    private string? _otherType;
    private Totals? _otherTotals;

    public long BySession { get; private set; }

    public long ByTimeOverlap { get; private set; }

    public bool IsEmpty => _byType.Count == 0;

    public void Add(WaitEvent wait, bool bySession)
    {
        if (!ReferenceEquals(wait.WaitType, _lastType) || _lastTotals is not { } totals)
        {
            if (!ReferenceEquals(wait.WaitType, _otherType) || _otherTotals is not { } other)
            {
                if (!_byType.TryGetValue(wait.WaitType, out other))
                {
                    other = new Totals();
                    _byType.Add(wait.WaitType, other);
                }
            }

            (_otherType, _otherTotals) = (_lastType, _lastTotals);
            (_lastType, _lastTotals) = (wait.WaitType, other);
            totals = other;
        }

        // Sources bound each duration (ServerRanges.MaxDurationMs); saturating sums keep even an adversarial
        // number of them from wrapping into a negative total.
        totals.Count++;
        totals.TotalMs = ServerRanges.SaturatingAdd(totals.TotalMs, Math.Max(0, wait.DurationMs));
        totals.SignalMs = ServerRanges.SaturatingAdd(totals.SignalMs, Math.Max(0, wait.SignalDurationMs));
        totals.MaxMs = Math.Max(totals.MaxMs, wait.DurationMs);
        if (bySession)
        {
            BySession++;
        }
        else
        {
            ByTimeOverlap++;
        }
    }

    public (string WaitType, long TotalMs)? Top()
    {
        (string, long)? top = null;
        foreach (var (type, totals) in _byType)
        {
            if (top is null || totals.TotalMs > top.Value.Item2)
            {
                top = (type, totals.TotalMs);
            }
        }

        return top;
    }

    public IReadOnlyList<WaitReport> ToReports()
        => _byType
            .Select(pair => new WaitReport(pair.Key, pair.Value.Count, pair.Value.TotalMs, pair.Value.MaxMs, pair.Value.SignalMs))
            .OrderByDescending(w => w.TotalMs)
            .ThenBy(w => w.WaitType, StringComparer.Ordinal)
            .ToList();

    public WaitAttribution? Attribution => (BySession, ByTimeOverlap) switch
    {
        (0, 0) => null,
        (_, 0) => WaitAttribution.Session,
        (0, _) => WaitAttribution.TimeOverlap,
        _ => WaitAttribution.Mixed,
    };

    private sealed class Totals
    {
        public long Count;
        public long TotalMs;
        public long MaxMs;
        public long SignalMs;
    }
}
