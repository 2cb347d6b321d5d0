using BackupXe.Core.Correlation;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// How much of a restore went into zero-initialising files (docs/backup-internals.md#data-path-readers-buffers-writers and docs/backup-internals.md#wait-types), measured four ways:
/// the "Zeroing" messages, the prepare-containers / wait-log-zero phases, PREEMPTIVE_OS_WRITEFILEGATHER waits
/// and, in a restore, BACKUP waits (waiting for log zero). The largest share wins; each one found is evidence.
/// </summary>
internal sealed record FileZeroing(double Share, bool LogZeroed, bool DataZeroed, IReadOnlyList<string> Evidence)
{
    /// <summary>The measure that gave the largest share ("the wait-log-zero phase", "the Zeroing messages"...).</summary>
    public string? DecidedBy { get; private init; }

    /// <summary>The seconds behind <see cref="Share"/>.</summary>
    public double Seconds { get; private init; }

    public static FileZeroing Measure(OperationMeasures measures)
    {
        var operation = measures.Operation;
        if (!measures.IsRestore || measures.DurationSeconds is not { } duration)
        {
            return new FileZeroing(0, false, false, []);
        }

        var evidence = new List<string>();
        var share = 0.0;
        var log = false;
        var data = false;
        string? decidedBy = null;
        var decisiveSeconds = 0.0;
        string Of(double seconds) => $"{Figures.Percent(seconds / duration)} of the {measures.DurationPhrase}";
        void Consider(double seconds, string measure)
        {
            if (seconds / duration > share)
            {
                share = seconds / duration;
                decidedBy = measure;
                decisiveSeconds = seconds;
            }
        }

        var zeroed = operation.Zeroing.Where(file => file.Seconds > 0).ToList();
        if (zeroed.Count > 0)
        {
            foreach (var file in zeroed.OrderByDescending(file => file.Seconds))
            {
                evidence.Add($"Zeroing {file.Path} took {Figures.Seconds(file.Seconds!.Value)} ({Of(file.Seconds.Value)}).");
            }

            var seconds = WallSeconds(zeroed);
            Consider(seconds, "the Zeroing messages (trace flag 3004)");
            if (zeroed.Count > 1)
            {
                evidence.Add($"Zeroing in all: {Figures.Seconds(seconds)} of wall time ({Of(seconds)}).");
            }
        }

        foreach (var file in operation.Zeroing)
        {
            log |= IsLogFile(file.Path);
            data |= IsDataFile(file.Path);
        }

        // The phases say how long the restore was blocked on zeroing: data files are zeroed while containers are
        // prepared, before any data moves; the log is zeroed alongside the transfer and only the wait for it at the
        // end blocks. When they were logged, that blocked time decides, not the zeroing's own wall time (S14: the log
        // was zeroed for 18.8 s of a 19.1 s restore, but the restore waited for it 9.6 s).
        var blocked = 0.0;
        var blockingPhases = new List<string>();
        foreach (var phase in new[] { OperationPhase.PrepareContainers, OperationPhase.WaitLogZero })
        {
            var name = Kebab.Of(phase);
            var seconds = operation.Phases
                .Where(p => string.Equals(p.Name, name, StringComparison.OrdinalIgnoreCase) && p.Seconds > 0)
                .Sum(p => p.Seconds!.Value);
            if (seconds > 0)
            {
                evidence.Add($"The {name} phase took {Figures.Seconds(seconds)} ({Of(seconds)}).");
                blocked += seconds;
                blockingPhases.Add($"the {name} phase");
                log |= phase == OperationPhase.WaitLogZero;
            }
        }

        if (blockingPhases.Count > 0)
        {
            share = 0;
            Consider(blocked, string.Join(" and ", blockingPhases));
            if (zeroed.Count > 0 && WallSeconds(zeroed) > blocked)
            {
                evidence.Add($"Zeroing ran alongside the data transfer; the restore was blocked on it {Figures.Seconds(blocked)} ({Of(blocked)}), and that decides.");
            }
        }

        // Files are zeroed in parallel: dividing by the number of zeroed files gives a lower bound of wall time.
        if (measures.Wait(BackupWaitTypes.WriteFileGather) is { TotalMs: > 0 } gather)
        {
            var seconds = Math.Min(duration, gather.TotalMs / 1000.0 / Math.Max(1, operation.Zeroing.Count));
            evidence.Add($"{BackupWaitTypes.WriteFileGather} (file zeroing): {Figures.Count(gather.Count)} waits, "
                + $"{Figures.Seconds(gather.TotalMs / 1000.0)} in all ({Of(seconds)}).");
            if (blockingPhases.Count == 0)
            {
                Consider(seconds, $"{BackupWaitTypes.WriteFileGather} waits");
            }
        }

        // In a restore BACKUP waits are threads waiting for the log to be zeroed (docs/backup-internals.md#wait-types).
        if (measures.Wait(BackupWaitTypes.Backup) is { TotalMs: > 0 } backup)
        {
            var seconds = Math.Min(duration, backup.TotalMs / 1000.0 / measures.DeviceThreads);
            evidence.Add($"BACKUP waits (in a restore: waiting for log zero): {Figures.Seconds(backup.TotalMs / 1000.0)} "
                + $"over {Figures.Plural(measures.DeviceThreads, "device", "devices")} ({Of(seconds)}).");
            if (blockingPhases.Count == 0)
            {
                Consider(seconds, "BACKUP waits");
            }
            log = true;
        }

        if (data)
        {
            // Data files are zeroed only when Instant File Initialization does not apply (docs/backup-internals.md#data-path-readers-buffers-writers).
            evidence.Add("Data files were zeroed: Instant File Initialization was not in effect for this restore.");
        }

        return new FileZeroing(Math.Min(1, share), log, data, evidence) { DecidedBy = decidedBy, Seconds = decisiveSeconds };
    }

    public static bool IsLogFile(string path) => path.EndsWith(".ldf", StringComparison.OrdinalIgnoreCase);

    public static bool IsDataFile(string path) =>
        path.EndsWith(".mdf", StringComparison.OrdinalIgnoreCase) || path.EndsWith(".ndf", StringComparison.OrdinalIgnoreCase);

    /// <summary>Union of the zeroing intervals when every one is timed, else the longest (a lower bound).</summary>
    private static double WallSeconds(IReadOnlyList<ZeroingReport> zeroed)
    {
        if (zeroed.Any(file => file.Start is null || file.End is null))
        {
            return zeroed.Max(file => file.Seconds!.Value);
        }

        var total = 0.0;
        DateTime? coveredUntil = null;
        foreach (var file in zeroed.OrderBy(file => file.Start))
        {
            var start = coveredUntil is { } until && until > file.Start!.Value ? until : file.Start!.Value;
            if (file.End!.Value > start)
            {
                total += (file.End.Value - start).TotalSeconds;
                coveredUntil = file.End.Value;
            }
        }

        return Math.Max(total, zeroed.Max(file => file.Seconds!.Value));
    }
}
