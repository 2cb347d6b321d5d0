using System.Globalization;
using System.Text;
using BackupXe.Core.Diagnosis;

namespace BackupXe.Core.Tuning;

/// <summary>
/// The COPY_ONLY BACKUP of one trial, to NUL or to new files: the database as a bracketed name, every path as an
/// N'' literal with quotes doubled. COPY_ONLY leaves the differential base and the log chain alone; the backup
/// still writes a row to msdb backup history. A trial to files names its media set (MEDIANAME, with NOINIT and NOSKIP):
/// the BACKUP page documents that a given media name must match the one already on the volumes, so the server itself
/// refuses to add to a file that existed, and msdb's backupmediaset finds the trial's row by that name. A trial to URLs
/// writes new blobs (the same names under each URL prefix) and never says FORMAT, so the server refuses a blob that
/// exists; it says no NOINIT or NOSKIP, which BACKUP TO URL does not take.
/// No STATS: a progress message the server sends before the end puts Microsoft.Data.SqlClient's asynchronous execution
/// where a cancel sends no ATTENTION (docs/tuning.md), and the trial's progress comes from the capture and
/// sys.dm_exec_requests.
/// </summary>
public sealed class TrialStatement
{
    private TrialStatement(string database, IReadOnlyList<string> devices, TrialOptions options, string? mediaName = null, string? setName = null, bool overwrite = false)
    {
        Database = database;
        Devices = devices;
        Options = options;
        MediaName = mediaName;
        BackupSetName = setName;
        Overwrite = overwrite;
    }

    /// <summary>
    /// The backup set's NAME (backupxe-tune-{run id}-{trial}-{run}), which msdb keeps in backupset.name: with
    /// is_copy_only it tells the tune's rows apart from production backups. Null for a statement built for display only.
    /// </summary>
    public string? BackupSetName { get; }

    /// <summary>
    /// The run overwrites a media set an earlier run of this tune wrote (WITH INIT, NOSKIP and its MEDIANAME): the server
    /// overwrites only volumes whose media name matches, so a file that is not the tune's own is refused.
    /// </summary>
    public bool Overwrite { get; }

    /// <summary>The trial's own media set name (backupxe-tune-{run id}-{trial}-{run}); null for a trial to NUL.</summary>
    public string? MediaName { get; }

    public string Database { get; }

    /// <summary>The files the trial writes, or ["NUL"] for a read-ceiling trial.</summary>
    public IReadOnlyList<string> Devices { get; }

    public TrialOptions Options { get; }

    public bool ToNul => Devices is ["NUL"];

    public static TrialStatement ToNulDevice(string database, TrialOptions options, string runId, int trial, int run) =>
        new(database, ["NUL"], options with { Files = 1 }, setName: SetName(runId, trial, run));

    /// <summary>
    /// A run to one of the tune's own media sets (<see cref="TrialSpace"/>): files named {media name}-{n}of{m}.bak,
    /// spread round-robin over <paramref name="directories"/>; new files on its first run, overwritten (INIT) on a later one.
    /// </summary>
    internal static TrialStatement ToMediaSet(string database, IReadOnlyList<string> directories, TrialOptions options, string mediaName, bool overwrite, string runId, int trial, int run)
    {
        var devices = Enumerable.Range(0, options.Files)
            .Select(i => Join(directories[i % directories.Count], string.Create(CultureInfo.InvariantCulture, $"{mediaName}-{i + 1}of{options.Files}.bak")))
            .ToList();
        return new TrialStatement(database, devices, options, mediaName, SetName(runId, trial, run), overwrite);
    }

    private static string SetName(string runId, int trial, int run) => string.Create(CultureInfo.InvariantCulture, $"backupxe-tune-{runId}-{trial:00}-{run}");

    /// <summary>
    /// New files named backupxe-tune-{run id}-{trial}-{run}-{n}of{m}.bak, spread round-robin over <paramref name="directories"/>;
    /// the run id makes them unique, and the tuner checks that none exists before the trial.
    /// </summary>
    public static TrialStatement ToFiles(string database, IReadOnlyList<string> directories, TrialOptions options, string runId, int trial, int run)
    {
        var devices = Enumerable.Range(0, options.Files)
            .Select(i => Join(directories[i % directories.Count], string.Create(CultureInfo.InvariantCulture, $"backupxe-tune-{runId}-{trial:00}-{run}-{i + 1}of{options.Files}.bak")))
            .ToList();
        return new TrialStatement(database, devices, options, SetName(runId, trial, run), SetName(runId, trial, run));
    }

    /// <summary>The statement as sent, ending with ';'.</summary>
    public string Sql => Render(Devices, copyOnly: true);

    /// <summary>The same options as a production backup would use them (no COPY_ONLY), to the given files.</summary>
    public string RecommendedSql(IReadOnlyList<string> devices) => Render(devices, copyOnly: false);

    private string Render(IReadOnlyList<string> devices, bool copyOnly)
    {
        var options = new List<string>();
        if (copyOnly)
        {
            options.Add("COPY_ONLY");
        }

        if (Options.Compression is { } compression)
        {
            options.Add(!compression ? "NO_COMPRESSION"
                : Options.CompressionAlgorithm is { } algorithm
                    ? Options.CompressionLevel is { } level
                        ? $"COMPRESSION (ALGORITHM = {algorithm}, LEVEL = {level})"
                        : $"COMPRESSION (ALGORITHM = {algorithm})"
                    : "COMPRESSION");
        }

        if (Options.BufferCount is { } count)
        {
            options.Add($"BUFFERCOUNT = {Tsql.Number(count)}");
        }

        if (Options.MaxTransferSizeBytes is { } size)
        {
            options.Add($"MAXTRANSFERSIZE = {Tsql.Number(size)}");
        }

        if (Options.BlockSizeBytes is { } block)
        {
            options.Add($"BLOCKSIZE = {Tsql.Number(block)}");
        }

        if (copyOnly && MediaName is { } media)
        {
            // BACKUP TO URL takes neither INIT/NOINIT nor SKIP/NOSKIP; without FORMAT it refuses a blob that exists.
            if (!devices.Any(UrlTarget.LooksLikeUrl))
            {
                options.Add(Overwrite ? "INIT, NOSKIP" : "NOINIT, NOSKIP");
            }

            options.Add($"MEDIANAME = {Tsql.Literal(media)}");
        }

        if (copyOnly && BackupSetName is { } name)
        {
            // msdb keeps both in backupset (name, description): with is_copy_only they tell the tune's rows apart.
            options.Add($"NAME = {Tsql.Literal(name)}");
            options.Add($"DESCRIPTION = {Tsql.Literal(devices is ["NUL"] ? "BackupXe tune trial (read ceiling to NUL): COPY_ONLY, no backup to restore" : "BackupXe tune trial: COPY_ONLY, not a backup to keep")}");
        }

        var sql = new StringBuilder();
        sql.Append("BACKUP DATABASE ").Append(Tsql.Name(Database)).Append('\n');
        sql.Append("TO ").AppendJoin(",\n   ", devices.Select(Tsql.Device)).Append('\n');
        sql.Append("WITH ").AppendJoin(", ", options).Append(';');
        return sql.ToString();
    }

    /// <summary>Joins with the separator the directory already uses (a Linux server's paths have '/').</summary>
    internal static string Join(string directory, string file)
    {
        var separator = directory.Contains('\\', StringComparison.Ordinal) || !directory.Contains('/', StringComparison.Ordinal) ? '\\' : '/';
        return directory.TrimEnd('\\', '/') + separator + file;
    }
}
