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
/// </summary>
public sealed class TrialStatement
{
    private TrialStatement(string database, IReadOnlyList<string> devices, TrialOptions options, string? mediaName = null)
    {
        Database = database;
        Devices = devices;
        Options = options;
        MediaName = mediaName;
    }

    /// <summary>The trial's own media set name (backupxe-tune-{run id}-{trial}-{run}); null for a trial to NUL.</summary>
    public string? MediaName { get; }

    public string Database { get; }

    /// <summary>The files the trial writes, or ["NUL"] for a read-ceiling trial.</summary>
    public IReadOnlyList<string> Devices { get; }

    public TrialOptions Options { get; }

    public bool ToNul => Devices is ["NUL"];

    public static TrialStatement ToNulDevice(string database, TrialOptions options) => new(database, ["NUL"], options with { Files = 1 });

    /// <summary>
    /// New files named backupxe-tune-{run id}-{trial}-{run}-{n}of{m}.bak, spread round-robin over <paramref name="directories"/>;
    /// the run id makes them unique, and the tuner checks that none exists before the trial.
    /// </summary>
    public static TrialStatement ToFiles(string database, IReadOnlyList<string> directories, TrialOptions options, string runId, int trial, int run)
    {
        var devices = Enumerable.Range(0, options.Files)
            .Select(i => Join(directories[i % directories.Count], string.Create(CultureInfo.InvariantCulture, $"backupxe-tune-{runId}-{trial:00}-{run}-{i + 1}of{options.Files}.bak")))
            .ToList();
        return new TrialStatement(database, devices, options, string.Create(CultureInfo.InvariantCulture, $"backupxe-tune-{runId}-{trial:00}-{run}"));
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
                options.Add("NOINIT, NOSKIP");
            }

            options.Add($"MEDIANAME = {Tsql.Literal(media)}");
        }

        options.Add("STATS = 5");
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
