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

        return problems;
    }
}
