using BackupXe.Core.Diagnosis;

namespace BackupXe.Core.Tuning;

/// <summary>
/// What a tune may use: the database, the directories trial files go to, the buffer memory budget (a hard limit,
/// judged on the server's own Total buffer space) and the time budget, and how long each trial's window lasts.
/// </summary>
public sealed record TuneRequest(
    string Database,
    IReadOnlyList<string> Directories,
    long MemoryBudgetBytes,
    TimeSpan TimeBudget,
    TimeSpan Window,
    string RunId)
{
    public const long DefaultMemoryBudgetBytes = 1024 * DiagnosisSettings.MegaByte;
    public static readonly TimeSpan DefaultTimeBudget = TimeSpan.FromMinutes(30);
    public static readonly TimeSpan DefaultWindow = TimeSpan.FromSeconds(60);

    /// <summary>Without --max-trial-space, trials to files kept on the server may leave this many full backups behind.</summary>
    public const int DefaultTrialSpaceMultiple = 4;

    /// <summary>
    /// The most the trial files kept on the server may hold in all (<c>--max-trial-space</c>); null for
    /// <see cref="DefaultTrialSpaceMultiple"/> full backups of the database.
    /// </summary>
    public long? MaxTrialSpaceBytes { get; init; }

    /// <summary>The most free space a DBA may state for a directory: 1 PB, in MB.</summary>
    public const long MaxStatedFreeMegabytes = 1L << 30;

    /// <summary>
    /// Free bytes the DBA states for a <c>--to</c> directory whose free space the server cannot report (no database file
    /// on its volume, or Linux); used only then, and less what earlier trials left there.
    /// </summary>
    public IReadOnlyDictionary<string, long> StatedFreeBytes { get; init; } = new Dictionary<string, long>();

    /// <summary>Restore trials after the backup trials (<c>--restore</c>); null for none.</summary>
    public RestoreTuneRequest? Restore { get; init; }

    /// <summary>The DBA accepts the risk of writing trial files where the server cannot report the free space.</summary>
    public bool AcceptUnknownFreeSpace { get; init; }

    /// <summary>The longest name SQL Server takes for a backup device, a URL included.</summary>
    public const int MaxDeviceNameLength = 259;

    /// <summary>backupxe-tune-{8 hex}-NN-R-NNofNN.bak: 36 characters at most after the prefix and its '/'.</summary>
    private const int MaxBlobNameLength = 36;

    /// <summary>The <c>--to</c> targets when every one is a URL BACKUP TO URL writes to; empty for directories.</summary>
    public IReadOnlyList<UrlTarget> Urls => Directories.Count > 0 && Directories.All(UrlTarget.LooksLikeUrl)
        ? [.. Directories.Select(d => UrlTarget.Parse(d).Target).OfType<UrlTarget>()]
        : [];

    /// <summary>One line per problem; empty when the request can run.</summary>
    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (string.IsNullOrWhiteSpace(Database))
        {
            problems.Add("--database is empty.");
        }

        if (Directories.Count == 0)
        {
            problems.Add("--to is required: the directory (or directories) the trial files go to.");
        }

        if (Directories.Any(d => string.IsNullOrWhiteSpace(d) || d.Trim().TrimEnd(':').Equals("NUL", StringComparison.OrdinalIgnoreCase)))
        {
            problems.Add("--to must name a directory on the server (the read ceiling goes to NUL on its own).");
        }

        if (Directories.Any(UrlTarget.LooksLikeUrl))
        {
            problems.AddRange(UrlProblems());
        }

        if (MemoryBudgetBytes < 16 * DiagnosisSettings.MegaByte || MemoryBudgetBytes > 64L * 1024 * DiagnosisSettings.MegaByte)
        {
            problems.Add("--memory-budget-mb must be between 16 and 65536.");
        }

        if (TimeBudget < TimeSpan.FromMinutes(1) || TimeBudget > TimeSpan.FromHours(24))
        {
            problems.Add("--time-budget must be between 1m and 24h.");
        }

        if (Window < TimeSpan.FromSeconds(5) || Window > TimeBudget)
        {
            problems.Add("--window must be at least 5s and within the time budget.");
        }

        if (Restore is { } restore)
        {
            if (string.IsNullOrWhiteSpace(restore.ScratchDirectory) || restore.ScratchDirectory.Trim().TrimEnd(':').Equals("NUL", StringComparison.OrdinalIgnoreCase))
            {
                problems.Add("--restore needs --scratch-dir: a directory on the server for the scratch databases' files.");
            }

            if (restore.From.Any(string.IsNullOrWhiteSpace))
            {
                problems.Add("--restore-from must name a backup file on the server.");
            }
        }

        foreach (var (directory, bytes) in StatedFreeBytes)
        {
            if (!Directories.Contains(directory, StringComparer.Ordinal) && directory != Restore?.ScratchDirectory)
            {
                problems.Add($"--free-space-mb names '{directory}', which is not one of the --to directories nor the --scratch-dir.");
            }

            if (UrlTarget.LooksLikeUrl(directory))
            {
                problems.Add($"--free-space-mb names the URL '{directory}': storage behind a URL has no free space the server reports; its limit is the blocks per blob, checked per trial.");
            }

            if (bytes < DiagnosisSettings.MegaByte || bytes > MaxStatedFreeMegabytes * DiagnosisSettings.MegaByte)
            {
                problems.Add($"--free-space-mb for '{directory}' must be between 1 and {MaxStatedFreeMegabytes} MB.");
            }
        }

        return problems;
    }

    /// <summary>URLs and directories not mixed, each URL one BACKUP TO URL takes, of one kind of storage, its blob names within the 259 characters of a backup device name.</summary>
    private IEnumerable<string> UrlProblems()
    {
        if (!Directories.All(UrlTarget.LooksLikeUrl))
        {
            yield return "--to takes directories or URLs, not both in one tune.";
            yield break;
        }

        var targets = new List<UrlTarget>();
        foreach (var directory in Directories)
        {
            var (target, problem) = UrlTarget.Parse(directory);
            if (problem is not null)
            {
                yield return problem;
            }
            else
            {
                targets.Add(target!);
            }
        }

        if (targets.Select(t => t.Storage).Distinct().Count() > 1)
        {
            yield return "--to URLs must all be Azure Blob Storage (https://) or all S3-compatible (s3://).";
        }

        foreach (var target in targets.Where(t => t.Prefix.Length + 1 + MaxBlobNameLength > MaxDeviceNameLength))
        {
            yield return $"--to '{target.Prefix}' leaves too little of the {MaxDeviceNameLength} characters a backup device name may have for the trial blobs' names ({MaxBlobNameLength}).";
        }
    }
}
