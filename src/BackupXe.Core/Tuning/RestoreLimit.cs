using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>Where a restore trial's time went, in the terms a restore is tuned by.</summary>
public enum RestoreSide
{
    /// <summary>Zero-initialising the files (the log always, data files without Instant File Initialization).</summary>
    FileZeroing,

    /// <summary>Redo and recovery after the copy: no restore option shortens it.</summary>
    Redo,

    /// <summary>The device readers waited on the backup's files (BACKUPIO): the backup's target reads too slowly.</summary>
    BackupRead,

    /// <summary>The device readers idled while the buffers waited (BACKUPBUFFER): writing the data files is slower.</summary>
    DataFileWrite,

    /// <summary>Many short BACKUPBUFFER waits with small buffers: more buffer memory moves it.</summary>
    Buffers,

    /// <summary>Waits were captured and none dominated.</summary>
    NoneDominant,

    /// <summary>The capture does not hold enough to say (no waits, no phase timed, too short).</summary>
    CannotTell,
}

/// <summary>
/// What limited one restore trial, read from its measured phases and waits as the backup diagnosis reads a backup's
/// (docs/diagnosis.md): the phases first (zeroing, then redo and recovery, each against the same share of the time
/// seen), then the copy's waits through the diagnosis itself (BACKUPIO of the device readers: reading the backup;
/// idle readers with BACKUPBUFFER: writing the data files; many short BACKUPBUFFER waits with small buffers: the
/// buffers). Anything else is <see cref="RestoreSide.CannotTell"/>, with the diagnosis's reason.
/// </summary>
public sealed record RestoreLimit(RestoreSide Side, string Evidence)
{
    internal static RestoreLimit Of(OperationReport operation, Verdict? verdict, DiagnosisSettings settings)
    {
        ArgumentNullException.ThrowIfNull(operation);
        ArgumentNullException.ThrowIfNull(settings);
        if (verdict?.Bottleneck == Bottleneck.FileZeroing)
        {
            return new(RestoreSide.FileZeroing, verdict.Evidence[0]);
        }

        var seen = operation.DurationSeconds ?? operation.MinimumDurationSeconds;
        var redo = operation.Phases
            .Where(p => p.Seconds > 0 && (p.Name == Kebab.Of(OperationPhase.Redo) || p.Name == Kebab.Of(OperationPhase.Recovery)))
            .Sum(p => p.Seconds!.Value);
        if (seen is > 0 and var duration && redo / duration >= settings.ZeroingShare)
        {
            return new(RestoreSide.Redo, $"Redo and recovery took {Figures.Seconds(redo)}, {Figures.Percent(redo / duration)} of the {Figures.Seconds(duration)} seen "
                + $"(the same {Figures.Percent(settings.ZeroingShare)} zeroing needs): no BUFFERCOUNT or MAXTRANSFERSIZE shortens it.");
        }

        // A trial stopped at its window ends as a failed restore: that sentence says nothing about its copy.
        var failure = FailureReasons.Sentence(operation, restore: true);
        var evidence = verdict?.Evidence.Where(line => line != failure).ToList() ?? [];
        var first = evidence.FirstOrDefault() ?? "The restore was not diagnosed.";
        var second = evidence.Skip(1).FirstOrDefault() is { } next ? " " + next : string.Empty;
        return verdict?.Bottleneck switch
        {
            Bottleneck.BackupDevice => new(RestoreSide.BackupRead, $"Reading the backup: {first}"),
            Bottleneck.DataFileRead => new(RestoreSide.DataFileWrite, $"Writing the data files: {first}{second}"),
            Bottleneck.BufferStarved => new(RestoreSide.Buffers, first),
            Bottleneck.None => new(RestoreSide.NoneDominant, first),
            _ => new(RestoreSide.CannotTell, first),
        };
    }
}
