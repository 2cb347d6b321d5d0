using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.Diagnosis;

namespace BackupXe.Core.Tuning;

/// <summary>
/// What a tune would run, with upper bounds, from the server's facts alone: the dry run's plan, and the notes that
/// say what the trials leave behind (msdb rows, kept files, blobs).
/// </summary>
internal static class TuningPlanner
{
    /// <summary>
    /// On a host that keeps trial files, they are written to a few media sets of the tune's own, reused by later runs,
    /// so that what stays on disk until the DBA removes it is bounded exactly (<see cref="TrialSpace"/>).
    /// </summary>
    public static TuningPlan ForHost(TuningPlan plan, ITuningServer server, TuningFacts facts, TuneRequest request)
    {
        if (server is not ITrialHost { DeletesFiles: false } || plan.Directories.Any(UrlTarget.LooksLikeUrl))
        {
            return plan;
        }

        var space = new TrialSpace(Tuner.FullBackupBytesAtMost(facts), Tuner.TrialSpaceLimit(facts, request), request.RunId);
        var bound = space.SlotsAtMost * space.SlotBytesAtMost;
        var kept = string.Create(CultureInfo.InvariantCulture, $"Trial files go to at most {space.SlotsAtMost} media sets of the tune's own (backupxe-tune-{request.RunId}-sNN-IofM.bak, one per number of files, compression and block size). ")
            + string.Create(CultureInfo.InvariantCulture, $"A media set's first run makes new files (NOINIT, NOSKIP, MEDIANAME = N'backupxe-tune-{request.RunId}-sNN'): the server refuses a file that existed. A later run of the same shape overwrites them WITH INIT, NOSKIP and that MEDIANAME, which the server does only for volumes carrying the tune's own media name. ")
            + string.Create(CultureInfo.InvariantCulture, $"A media set holds one backup at a time, so at most one full backup ({Figures.Bytes(space.SlotBytesAtMost)}, {space.SlotBytesAtMost} bytes: data and log files' allocated size, plus 1% and 64 MB of margin): at most {Figures.Bytes(bound)} ({bound} bytes) left on disk in all, within {(request.MaxTrialSpaceBytes is null ? $"{TuneRequest.DefaultTrialSpaceMultiple} full backups (--max-trial-space sets another bound)" : "--max-trial-space")}. ")
            + "No documented, least-privilege T-SQL deletes a file on the server, so they are kept: the end of the run (or Ctrl-C, after the running backup is stopped) lists each with its bound and the command that removes them.";
        return plan with
        {
            FilesKept = true,
            DiskSpaceAtMost = bound,
            Notes = [.. plan.Notes.Select(note => note.StartsWith(NewFilesNote, StringComparison.Ordinal) ? kept : note)],
        };
    }

    private const string NewFilesNote = "Trial files are new files with unique names";

    /// <summary>
    /// Every trial writes an msdb backupset row; the read ceilings' rows (to NUL) look like full backups that exist
    /// nowhere. The query that tells them apart, for monitoring that reads "the last full backup".
    /// </summary>
    public static string MsdbRowsNote(string database, string runId) =>
        $"Every trial, the read ceilings to NUL included, writes a row to msdb.dbo.backupset of a full backup with is_copy_only = 1, NAME N'backupxe-tune-{runId}-NN-R' and a DESCRIPTION starting 'BackupXe tune trial'. "
        + "Monitoring that reads the last full backup without is_copy_only may take a read ceiling's row (a backup to NUL, nothing to restore) for one. The tune's rows: "
        + $"SELECT backup_set_id, name, description, backup_start_date FROM msdb.dbo.backupset WHERE database_name = {Tsql.Literal(database)} AND is_copy_only = 1 AND name LIKE N'backupxe-tune-{runId}-%'; "
        + $"the last full backup without them: SELECT TOP (1) backup_finish_date FROM msdb.dbo.backupset WHERE database_name = {Tsql.Literal(database)} AND type = 'D' AND is_copy_only = 0 ORDER BY backup_finish_date DESC;";

    /// <summary>What would run, with upper bounds, from the server's facts alone.</summary>
    public static TuningPlan Plan(TuningFacts facts, TuneRequest request)
    {
        ArgumentNullException.ThrowIfNull(facts);
        ArgumentNullException.ThrowIfNull(request);
        var fixedTrials = new List<string>
        {
            "read ceiling: COPY_ONLY to NUL, NO_COMPRESSION, default buffers",
            "read ceiling: COPY_ONLY to NUL, NO_COMPRESSION, more buffer memory within the budget",
        };
        if (facts.CompressionAvailable)
        {
            fixedTrials.Add("compression ceiling: COPY_ONLY to NUL, COMPRESSION, the same buffers");
        }

        var urls = request.Urls;
        var baselineUrls = urls.Count > 0 ? UrlsFor(urls[0].Limits, facts.DatabaseBytes, TrialOptions.Defaults).Files : 1;
        fixedTrials.Add(urls.Count > 0
            ? $"baseline: COPY_ONLY to {baselineUrls} new blob{(baselineUrls == 1 ? "" : "s")} under {urls[0].Prefix}, the server's defaults, run twice to measure the noise"
            : $"baseline: COPY_ONLY to 1 new file in {request.Directories[0]}, the server's defaults, run twice to measure the noise");
        var perTrial = request.Window.TotalSeconds + Tuner.TrialOverheadSeconds;
        var fixedRuns = fixedTrials.Count + 1;
        var guided = Math.Max(0, (int)Math.Floor(request.TimeBudget.TotalSeconds / perTrial) - fixedRuns);
        var runs = fixedRuns + guided;
        var notes = new List<string>
        {
            "Every trial is a COPY_ONLY backup: the differential base and the log chain are untouched, but each trial still writes a row to msdb backup history (backupset, backupmediafamily).",
            MsdbRowsNote(request.Database, request.RunId),
            "Trial files are new files with unique names, never an existing file; each trial's files are deleted when it ends, and on Ctrl-C after its backup is stopped.",
            "Before each trial: free space on each directory, and no other backup or restore of the database running.",
        };
        if (urls.Count > 0)
        {
            notes.RemoveAll(note => note.StartsWith(NewFilesNote, StringComparison.Ordinal) || note.StartsWith("Before each trial: free space", StringComparison.Ordinal));
            notes.AddRange(UrlNotes(urls, facts, request, (runs - 3) * facts.DatabaseBytes));
        }

        if (facts.Encrypted)
        {
            notes.Add("The database is encrypted (TDE): compressed trials use MAXTRANSFERSIZE above 64 KB, which compression of a TDE database needs (SQL Server 2016 CU4 and later).");
        }

        if (!facts.CompressionAvailable)
        {
            notes.Add("This server offers no backup compression: no compressed trial is planned.");
        }

        if (request.Restore is { } restore)
        {
            notes.Add($"Then up to {RestoreTuneRequest.MaxTrials} restore option sets (each run again while the noise hides its gain) of {(restore.From.Count > 0 ? string.Join(", ", restore.From) : "the last trial backup that finished")}: "
                + $"each RESTOREs into a new scratch database (backupxe_tune_{request.RunId}_rNN, checked unused first) with every file moved under {restore.ScratchDirectory}, never WITH REPLACE, "
                + "and DROPs it after, Ctrl-C included (its files go with it); each writes a row to msdb restore history. The login needs CREATE DATABASE, checked first.");
        }

        return new TuningPlan(
            request.Database,
            request.Directories,
            fixedTrials,
            guided,
            request.Window.TotalSeconds,
            Tuner.TrialOverheadSeconds,
            request.TimeBudget.TotalSeconds,
            facts.DatabaseBytes,
            BytesReadAtMost: runs * facts.DatabaseBytes,
            BytesWrittenAtMost: (runs - 3) * facts.DatabaseBytes,
            DiskSpaceAtMost: urls.Count > 0 ? 0 : facts.DatabaseBytes,
            request.MemoryBudgetBytes,
            notes)
        {
            FilesKept = urls.Count > 0,
        };
    }

    /// <summary>What a tune to URLs adds to the plan: the credential checked, the URLs each trial needs, the blobs left behind.</summary>
    private static IEnumerable<string> UrlNotes(IReadOnlyList<UrlTarget> urls, TuningFacts facts, TuneRequest request, long bytesWrittenAtMost)
    {
        var limits = urls[0].Limits;
        var prefixes = string.Join(", ", urls.Select(u => u.Prefix));
        yield return "Before any trial: the credential BACKUP TO URL uses for each URL, looked up by name in sys.credentials (read-only; its secret is never read): "
            + string.Join(", ", urls.Select(u => u.ContainerUrl).Distinct(StringComparer.OrdinalIgnoreCase)) + ". A URL without one refuses the tune, naming the CREATE CREDENTIAL to run.";
        yield return string.Create(CultureInfo.InvariantCulture,
            $"Each trial writes new blobs named backupxe-tune-{request.RunId}-NN-R-IofM.bak under {prefixes}, never WITH FORMAT, so the server refuses a blob that exists. "
            + $"A {limits.BlobWord} holds {urls[0].Describe(null)} at the default MAXTRANSFERSIZE, {urls[0].Describe(limits.MaxTransferBytes)} at the largest: each trial stripes over enough URLs to hold the whole {Figures.Bytes(facts.DatabaseBytes)} database "
            + $"if it finishes ({UrlsFor(limits, facts.DatabaseBytes, TrialOptions.Defaults).Files} at the default MAXTRANSFERSIZE), and at most {limits.MaxUrls}.");
        yield return string.Create(CultureInfo.InvariantCulture,
            $"Every trial blob is left in storage: neither the server (no T-SQL statement deletes a blob) nor BackupXe (it holds no storage credential) can delete it. "
            + $"Up to {Figures.Bytes(bytesWrittenAtMost)} in blobs backupxe-tune-{request.RunId}-*.bak under {prefixes}; the end of the run (or Ctrl-C) lists each, for deletion with the storage's own tools.");
        yield return "The read ceilings back up to DISK = N'NUL', as for directories: they write no blob.";
        if (urls[0].Storage == UrlStorage.S3Compatible)
        {
            yield return S3NotRun;
        }
    }

    public const string S3NotRun = "Trials to S3-compatible storage are planned, not run: --execute refuses them. Its MAXTRANSFERSIZE must stay within 5 MB to 20 MB "
        + "and may only be set with COMPRESSION, and this build's buffer search does not hold its trials to that yet.";

    /// <summary>
    /// <paramref name="options"/> striped over at least as many URLs as hold <paramref name="databaseBytes"/> (the whole
    /// backup, if the trial finishes) at its MAXTRANSFERSIZE; at the largest transfer size when the default needs more
    /// URLs than a backup takes.
    /// </summary>
    public static TrialOptions UrlsFor(UrlLimits limits, long databaseBytes, TrialOptions options)
    {
        var needed = limits.MinimumUrls(databaseBytes, options.MaxTransferSizeBytes);
        if (needed > limits.MaxUrls && options.MaxTransferSizeBytes is null && limits.Takes(limits.MaxTransferBytes, options.Compression))
        {
            options = options with { MaxTransferSizeBytes = limits.MaxTransferBytes };
            needed = limits.MinimumUrls(databaseBytes, options.MaxTransferSizeBytes);
        }

        return options with { Files = Math.Max(options.Files, needed) };
    }
}
