using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// Signs of progress of one operation, and the quiet periods between them long enough to name. A period counts when
/// it lasts at least <see cref="StallAfter"/> and at least <see cref="UsualIntervalFactor"/> times the operation's own
/// mean interval between byte readings, so that a very large backup writing a percent line every few minutes is not
/// called stalled between two lines. A byte-moving phase only counts once the input has shown bytes moving: an input
/// without percent lines cannot tell a stall from a quiet copy. Bounded: at most <see cref="MaxPeriods"/> periods kept.
/// </summary>
public sealed class ByteFlow
{
    public const int MaxPeriods = 32;

    public const double UsualIntervalFactor = 3;

    public static readonly TimeSpan DefaultStallAfter = TimeSpan.FromMinutes(5);

    private readonly List<QuietPeriod> _periods = [];
    private long _bytes;
    private OperationPhase? _phase;

    public TimeSpan StallAfter { get; set; } = DefaultStallAfter;

    /// <summary>The last time bytes moved or the phase changed (the first event seen before either).</summary>
    public DateTime? LastSign { get; private set; }

    public DateTime? FirstMoved { get; private set; }

    public DateTime? LastMoved { get; private set; }

    /// <summary>How many readings showed more bytes than the one before.</summary>
    public long Moves { get; private set; }

    /// <summary>Every qualifying period, kept or not.</summary>
    public int PeriodCount { get; private set; }

    public IReadOnlyList<QuietPeriod> Periods => _periods;

    /// <summary>The mean time between two byte readings that moved, once there are two.</summary>
    public TimeSpan? UsualInterval => Moves >= 2 && FirstMoved is { } first && LastMoved is { } last ? (last - first) / (Moves - 1) : null;

    /// <summary>Takes the operation's state after an event at <paramref name="at"/>.</summary>
    public void Observe(DateTime at, long bytes, OperationPhase? phase)
    {
        if (LastSign is not { } since)
        {
            LastSign = at;
            _phase = phase;
            Moved(at, bytes);
            return;
        }

        var moved = bytes > _bytes;
        if (!moved && phase == _phase)
        {
            return;
        }

        if (at > since && Classify(at - since) is { } kind)
        {
            PeriodCount++;
            if (_periods.Count < MaxPeriods)
            {
                _periods.Add(new QuietPeriod(since, at, PhaseName(_phase), kind, Ongoing: false));
            }
        }

        Moved(at, bytes);
        _phase = phase;
        LastSign = at;
    }

    /// <summary>The quiet period running at <paramref name="now"/>, when it is long enough to name.</summary>
    public QuietPeriod? Ongoing(DateTime now)
        => LastSign is { } since && now > since && Classify(now - since) is { } kind
            ? new QuietPeriod(since, now, PhaseName(_phase), kind, Ongoing: true)
            : null;

    private QuietKind? Classify(TimeSpan quiet)
    {
        if (quiet < StallAfter || (UsualInterval is { } usual && quiet < usual * UsualIntervalFactor))
        {
            return null;
        }

        if (_phase is { } phase && PhaseTimeline.MovesNoBytes(phase))
        {
            return QuietKind.ExpectedWait;
        }

        return Moves > 0 ? QuietKind.Stall : null;
    }

    private void Moved(DateTime at, long bytes)
    {
        if (bytes > _bytes)
        {
            FirstMoved ??= at;
            LastMoved = at;
            Moves++;
            _bytes = bytes;
        }
    }

    private static string? PhaseName(OperationPhase? phase) => phase is { } p ? Kebab.Of(p) : null;
}
