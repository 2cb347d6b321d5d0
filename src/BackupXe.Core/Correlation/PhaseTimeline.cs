using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// The phases of one operation in the order they began. A phase ends at its own end marker when the
/// server writes one, otherwise where the next phase begins, otherwise where the operation ends: the
/// closing wording of several steps is known only from prose (docs/backup-internals.md#message-vocabulary), so most ends are implicit.
/// </summary>
public sealed class PhaseTimeline
{
    private readonly List<Span> _spans = [];

    /// <summary>
    /// Phases that move no backup bytes while they run (zeroing, recovery, upgrade steps): no percent line can show
    /// their progress, only the time spent in them.
    /// </summary>
    public static bool MovesNoBytes(OperationPhase phase) => phase is OperationPhase.Checkpoint or OperationPhase.PrepareContainers
        or OperationPhase.WaitLogZero or OperationPhase.Redo or OperationPhase.Recovery or OperationPhase.InMemoryLoad or OperationPhase.Upgrade;

    public OperationPhase? Current => _spans.Count == 0 ? null : _spans[^1].EndMarked ? null : _spans[^1].Phase;

    public void Mark(OperationPhase phase, PhaseEdge edge, DateTime at)
    {
        var found = LastIndexOf(phase);
        var existing = found < 0 ? null : _spans[found];
        if (edge == PhaseEdge.Begin)
        {
            // A phase happens once per operation. Its begin marker can repeat: SQL Server 2014 writes "Calculating
            // expected size of total data" again after the leading metadata and after the copy, and a restore
            // writes "Transferring data" per file group. A repeat must not reopen the phase and split the next one.
            if (existing is not null)
            {
                return;
            }

            _spans.Add(new Span(phase, at));
            return;
        }

        if (existing is null)
        {
            // An end without a begin still says when the phase finished; it began where the previous one ended.
            var begin = _spans.Count == 0 ? (DateTime?)null : EndOf(_spans.Count - 1, null);
            _spans.Add(new Span(phase, begin ?? at) { End = at, EndMarked = true, BeginUnknown = begin is null });
            return;
        }

        existing.End = at;
        existing.EndMarked = true;
    }

    public DateTime? BeginOf(OperationPhase phase) => LastIndexOf(phase) is var index and >= 0 ? _spans[index].Begin : null;

    /// <summary>The phase's end: explicit, implicit, or null when nothing after it is known.</summary>
    public DateTime? EndOf(OperationPhase phase, DateTime? operationEnd)
    {
        var index = LastIndexOf(phase);
        return index < 0 ? null : EndOf(index, operationEnd);
    }

    public IReadOnlyList<PhaseReport> ToReports(DateTime? operationStart, DateTime? operationEnd, OperationKind kind)
    {
        var reports = new List<PhaseReport>(_spans.Count + 1);

        // Backups have no "startup" marker: it is the time from the start until the first named step.
        if (kind == OperationKind.Backup && operationStart is { } start && _spans.Count > 0 && _spans[0].Begin > start)
        {
            reports.Add(Report("startup", start, _spans[0].Begin));
        }

        for (var i = 0; i < _spans.Count; i++)
        {
            var span = _spans[i];
            reports.Add(Report(Kebab.Of(span.Phase), span.BeginUnknown ? null : span.Begin, EndOf(i, operationEnd)));
        }

        return reports;
    }

    // A loop, not FindLast with a lambda: the lambda captured the phase, a closure and a delegate for every marker line.
    private int LastIndexOf(OperationPhase phase)
    {
        for (var i = _spans.Count - 1; i >= 0; i--)
        {
            if (_spans[i].Phase == phase)
            {
                return i;
            }
        }

        return -1;
    }

    private DateTime? EndOf(int index, DateTime? operationEnd)
    {
        var span = _spans[index];
        if (span.EndMarked)
        {
            return span.End;
        }

        return index + 1 < _spans.Count ? _spans[index + 1].Begin : operationEnd;
    }

    private static PhaseReport Report(string name, DateTime? begin, DateTime? end)
        => new(name, begin, end, begin is { } b && end is { } e && e >= b ? (e - b).TotalSeconds : null);

    private sealed class Span(OperationPhase phase, DateTime begin)
    {
        public OperationPhase Phase { get; } = phase;

        public DateTime Begin { get; } = begin;

        public DateTime? End { get; set; }

        public bool EndMarked { get; set; }

        public bool BeginUnknown { get; init; }
    }
}
