using BackupXe.Core.Reporting;

namespace BackupXe.Core.History;

/// <summary>
/// The match rule (docs/history.md, "One operation, several sources"): two records are the same operation
/// when they have the same kind, scope and database (case-insensitive), their time spans overlap once each is
/// widened by its own resolution plus <see cref="SlackSeconds"/>, and, when both name device paths, they
/// share one. Times in UTC (XE captures) meet local times (msdb, CommandLog, job output) only when the local
/// record knows its server's UTC offset (msdb's time_zone); otherwise they are not compared.
/// Two backups of one database and scope cannot run at the same time (SQL Server serialises them), so
/// overlapping spans of the same series are one operation.
/// </summary>
public static class HistoryMerge
{
    /// <summary>
    /// CommandExecute takes its start time before it runs the command, and msdb records the start after the
    /// engine has opened the devices: the spans of one backup seen by both differ by that much.
    /// </summary>
    public const double SlackSeconds = 2;

    public static bool SameOperation(HistoryOperation a, HistoryOperation b)
    {
        if (a.Kind != b.Kind || a.Scope != b.Scope || a.Database is null || b.Database is null
            || !string.Equals(a.Database, b.Database, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        if (Comparable(a, b) is not { } shift)
        {
            return false;
        }

        var (aStart, aEnd) = Span(a);
        var (bStart, bEnd) = Span(b);
        bStart += shift;
        bEnd += shift;
        if (aStart > bEnd || bStart > aEnd)
        {
            return false;
        }

        var aPaths = Paths(a);
        var bPaths = Paths(b);
        return aPaths.Count == 0 || bPaths.Count == 0 || aPaths.Overlaps(bPaths);
    }

    /// <summary>One record holding the best of both: times from the finer source, sizes, devices and options from whoever knows them.</summary>
    public static HistoryOperation Merge(HistoryOperation a, HistoryOperation b)
    {
        var timed = Finer(a, b);
        var other = ReferenceEquals(timed, a) ? b : a;
        var described = a.Sources.Contains(HistorySource.Msdb) ? a : b.Sources.Contains(HistorySource.Msdb) ? b : timed;
        return timed with
        {
            Database = described.Database ?? other.Database,
            EngineSeconds = timed.EngineSeconds ?? other.EngineSeconds,
            // The engine's page count when a source saw it, else msdb's backup_size (headers included).
            BytesRead = PreferNot(HistorySource.Msdb, a, b, r => r.BytesRead),
            BytesWritten = a.BytesWritten ?? b.BytesWritten,
            Devices = described.Devices.Count > 0 ? described.Devices : timed.Devices.Count > 0 ? timed.Devices : other.Devices,
            Options = PreferNot(HistorySource.Msdb, a, b, r => r.Options)!.Or(a.Sources.Contains(HistorySource.Msdb) ? b.Options : a.Options),
            // msdb keeps successful backups only: a job output's or CommandLog's outcome is the one to keep.
            Status = PreferNot(HistorySource.Msdb, a, b, r => (OperationStatus?)r.Status)!.Value,
            ErrorMessage = a.ErrorMessage ?? b.ErrorMessage,
            Snapshot = a.Snapshot || b.Snapshot,
            // Only a capture times a restore's phases: whichever record has them keeps them.
            RedoSeconds = a.RedoSeconds ?? b.RedoSeconds,
            RecoverySeconds = a.RecoverySeconds ?? b.RecoverySeconds,
            UtcOffset = a.UtcOffset ?? b.UtcOffset,
            ServerBuild = a.ServerBuild ?? b.ServerBuild,
            // msdb's and the media's LSNs and ids are the same facts: whichever record has them keeps them.
            Lsns = a.Lsns ?? b.Lsns,
            RecoveryModel = a.RecoveryModel ?? b.RecoveryModel,
            Identity = a.Identity?.Or(b.Identity) ?? b.Identity,
            Sources = a.Sources.Union(b.Sources).Order().ToList(),
        };
    }

    /// <summary>
    /// The records with every set of matching ones merged: linear after sorting, since a record is compared
    /// only with the merged records of its series that started within a day before it.
    /// </summary>
    public static IReadOnlyList<HistoryOperation> Fold(IEnumerable<HistoryOperation> records)
    {
        var merged = new List<HistoryOperation>();
        foreach (var series in records.GroupBy(r => (r.Kind, r.Scope, Database: r.Database?.ToUpperInvariant())))
        {
            var kept = new List<HistoryOperation>();
            foreach (var record in series.OrderBy(r => r.Start))
            {
                var match = -1;
                for (var i = kept.Count - 1; i >= 0 && (record.Start - kept[i].Start).TotalDays < 1; i--)
                {
                    if (SameOperation(kept[i], record))
                    {
                        match = i;
                        break;
                    }
                }

                if (match >= 0)
                {
                    kept[match] = Merge(kept[match], record);
                }
                else
                {
                    kept.Add(record);
                }
            }

            merged.AddRange(kept);
        }

        return merged.OrderBy(r => r.Start).ToList();
    }

    /// <summary>How much to add to <paramref name="b"/>'s times to compare them with <paramref name="a"/>'s; null when they cannot be compared.</summary>
    private static TimeSpan? Comparable(HistoryOperation a, HistoryOperation b)
    {
        var aUtc = a.Start.Kind == DateTimeKind.Utc;
        var bUtc = b.Start.Kind == DateTimeKind.Utc;
        if (aUtc == bUtc)
        {
            return TimeSpan.Zero;
        }

        // Local = UTC + offset.
        return aUtc
            ? (b.UtcOffset is { } bOffset ? -bOffset : null)
            : (a.UtcOffset is { } aOffset ? aOffset : null);
    }

    private static (DateTime Start, DateTime End) Span(HistoryOperation record)
    {
        var widen = TimeSpan.FromSeconds(record.TimeResolutionSeconds + SlackSeconds);
        var end = record.End ?? record.Start + TimeSpan.FromSeconds(record.DurationSeconds ?? 0);
        return (record.Start - widen, end + widen);
    }

    private static HashSet<string> Paths(HistoryOperation record)
        => record.Devices.Where(d => d.Path is not null && !d.IsMirror).Select(d => d.Path!).ToHashSet(StringComparer.OrdinalIgnoreCase);

    private static HistoryOperation Finer(HistoryOperation a, HistoryOperation b)
        => b.TimeResolutionSeconds < a.TimeResolutionSeconds
           || (b.TimeResolutionSeconds == a.TimeResolutionSeconds && b.EngineSeconds is not null && a.EngineSeconds is null)
            ? b
            : a;

    private static T? PreferNot<T>(HistorySource source, HistoryOperation a, HistoryOperation b, Func<HistoryOperation, T?> value)
    {
        var (first, second) = a.Sources.Contains(source) && !b.Sources.Contains(source) ? (b, a) : (a, b);
        return value(first) ?? value(second);
    }
}
