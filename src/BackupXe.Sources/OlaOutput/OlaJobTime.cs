using System.Globalization;
using BackupXe.Core.Formatting;

namespace BackupXe.Sources.OlaOutput;

/// <summary>What one of DatabaseBackup's commands does for the job's time.</summary>
internal enum OlaCommandRole
{
    BackupOrRestore,
    Verification,
}

/// <summary>
/// A job's time accounted from its commands' start and end lines: the BACKUP and RESTORE commands, the RESTORE
/// VERIFYONLY verifications, and the rest of the span from the first command's start to the last one's end (the
/// procedure's own work between them: size checks, directory and clean-up steps), which no command line times.
/// </summary>
internal sealed class OlaJobTime(int headerLine)
{
    /// <summary>The line of the run's "Server:" header.</summary>
    public int HeaderLine { get; } = headerLine;

    private DateTime? _first;
    private DateTime? _last;
    private double _operationSeconds;
    private double _verificationSeconds;
    private int _operations;
    private int _verifications;

    // DatabaseBackup runs its commands one after the other; an hour with none is runs appended without their header.
    private static readonly TimeSpan LongestPause = TimeSpan.FromHours(1);

    private bool _appended;

    public void Add(OlaCommandRole role, DateTime start, DateTime end)
    {
        _appended |= _last is { } previous && start - previous > LongestPause;
        _first = _first is { } first && first <= start ? first : start;
        _last = _last is { } last && last >= end ? last : end;
        var seconds = (end - start).TotalSeconds;
        if (role == OlaCommandRole.Verification)
        {
            _verificationSeconds += seconds;
            _verifications++;
        }
        else
        {
            _operationSeconds += seconds;
            _operations++;
        }
    }

    /// <summary>
    /// "the job's commands ran from 12:00:11 to 12:00:17 (6 s): 1 backup or restore 5 s, 1 verification 1 s, between
    /// and around the commands 0 s"; null unless two commands at least are timed (one command is its own span), and null
    /// when an hour or more passes between two commands (several runs written under one header cannot be told apart).
    /// </summary>
    public string? Sentence()
    {
        if (_first is not { } first || _last is not { } last || _verifications + _operations < 2 || _appended)
        {
            return null;
        }

        var span = (last - first).TotalSeconds;
        var rest = Math.Max(0, span - _operationSeconds - _verificationSeconds);
        return string.Create(CultureInfo.InvariantCulture,
            $"the job's commands ran from {first:yyyy-MM-dd HH:mm:ss} to {last:yyyy-MM-dd HH:mm:ss} ({Figures.Duration(span)}): "
            + $"{_operations} backup or restore command{(_operations == 1 ? "" : "s")} {Figures.Duration(_operationSeconds)}, "
            + $"{_verifications} verification{(_verifications == 1 ? "" : "s")} (RESTORE VERIFYONLY) {Figures.Duration(_verificationSeconds)}, "
            + $"between and around the commands (the procedure's own checks and clean-up, which no command line times) {Figures.Duration(rest)}");
    }
}
