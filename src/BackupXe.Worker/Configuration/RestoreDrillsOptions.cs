using System.Globalization;
using BackupXe.Core.Drill;

namespace BackupXe.Worker.Configuration;

/// <summary>
/// The restore drills of one live instance, the source (docs/configuration.md, "Restore drill windows"): in each window
/// the daemon runs <c>backupxe restore-drill --execute</c> of every listed database into a scratch database on
/// <see cref="TargetInstance"/>, one after the other, under the same safety rules as the CLI. Off while
/// <see cref="Databases"/> is empty.
/// </summary>
internal sealed class RestoreDrillsOptions
{
    /// <summary>A drill list longer than this is no drill schedule, and each database is a metric series (docs/metrics.md).</summary>
    public const int MaxDatabases = 50;

    /// <summary>The longest path SQL Server's MOVE takes without long-path support.</summary>
    public const int MaxFolderLength = 260;

    /// <summary>The databases drilled in each window, in this order; empty turns the drills off.</summary>
    public List<string> Databases { get; set; } = [];

    /// <summary>The instance (a Name of BackupXe:Instances, with a live connection) the drills restore on.</summary>
    public string? TargetInstance { get; set; }

    /// <summary>When the drills may run: cron rules and durations, as capture windows are written; a drill still running at the window's end is stopped.</summary>
    public List<CaptureWindowOptions> Windows { get; set; } = [];

    /// <summary>An IANA or Windows time zone id the rules are read in; null: the daemon machine's local time zone.</summary>
    public string? TimeZone { get; set; }

    /// <summary>Each backup chain is read from the source's msdb over this many days (the CLI's --since).</summary>
    public double LookbackDays { get; set; } = BackupXeOptionsDefaults.DrillLookbackDays;

    /// <summary>DBCC CHECKDB of the scratch database after its recovery (the CLI's --checkdb).</summary>
    public bool CheckDb { get; set; }

    /// <summary>The folders the scratch files go to; null: the target's default data and log folders.</summary>
    public string? DataFolder { get; set; }

    public string? LogFolder { get; set; }

    /// <summary>Allows a target that is the source server itself (the CLI's --allow-source-server): off, a drill there competes with the source's work.</summary>
    public bool AllowSourceServer { get; set; }

    public bool Enabled => Databases.Count > 0;

    /// <summary>The windows as the capture schedule reads them, with no lead: a drill starts when its window opens.</summary>
    public CaptureWindowsOptions AsWindows() => new() { Windows = Windows, TimeZone = TimeZone, LeadMinutes = 0 };

    /// <summary>Every problem with the drills of <paramref name="instance"/>, each naming its key under <paramref name="key"/>.</summary>
    public static IReadOnlyList<string> Problems(InstanceOptions instance, IReadOnlyList<InstanceOptions> instances, string key)
    {
        ArgumentNullException.ThrowIfNull(instance);
        var drills = instance.RestoreDrills;
        var problems = new List<string>();
        if (!drills.Enabled)
        {
            if (drills.Windows.Count > 0 || drills.TargetInstance is not null)
            {
                problems.Add($"{key}:Databases is empty, so the drill windows and target would do nothing: list the databases to drill, or remove the section.");
            }

            return problems;
        }

        if (!instance.HasLiveConnection)
        {
            problems.Add($"{key} needs a live instance (ConnectionString or Server): the drill reads the backup chain from its msdb.");
        }

        if (drills.Databases.Count > MaxDatabases)
        {
            problems.Add(string.Create(CultureInfo.InvariantCulture, $"{key}:Databases lists {drills.Databases.Count} databases, more than {MaxDatabases}: each is drilled in turn in every window and is a metric series of its own."));
        }

        for (var index = 0; index < drills.Databases.Count; index++)
        {
            var name = drills.Databases[index];
            if (string.IsNullOrWhiteSpace(name) || name.Trim().Length > RestoreDrillStatements.MaxNameLength)
            {
                problems.Add(string.Create(CultureInfo.InvariantCulture, $"{key}:Databases:{index} must be a database name of 1 to {RestoreDrillStatements.MaxNameLength} characters."));
            }
            else if (drills.Databases.Take(index).Any(d => string.Equals(d?.Trim(), name.Trim(), StringComparison.OrdinalIgnoreCase)))
            {
                problems.Add($"{key}:Databases:{index.ToString(CultureInfo.InvariantCulture)} names '{name.Trim()}' a second time.");
            }
        }

        var target = instances.FirstOrDefault(i => string.Equals(i.Name, drills.TargetInstance, StringComparison.Ordinal));
        if (string.IsNullOrWhiteSpace(drills.TargetInstance))
        {
            problems.Add($"{key}:TargetInstance is required: the Name of the instance (in BackupXe:Instances) the drills restore on.");
        }
        else if (target is null || !target.HasLiveConnection)
        {
            problems.Add($"{key}:TargetInstance '{drills.TargetInstance}' is not the Name of a live instance in BackupXe:Instances.");
        }
        else if (ReferenceEquals(target, instance) && !drills.AllowSourceServer)
        {
            problems.Add($"{key}:TargetInstance is the instance itself: a drill on the source server competes with its databases' work for disk, memory and log; set AllowSourceServer to true to allow it.");
        }

        if (drills.Windows.Count == 0)
        {
            problems.Add($"{key}:Windows is empty: drills run only inside a window; give at least one (Start, a cron rule, and DurationMinutes).");
        }
        else
        {
            problems.AddRange(CaptureSchedule.From(drills.AsWindows(), key).Problems);
        }

        if (!double.IsFinite(drills.LookbackDays) || drills.LookbackDays <= 0 || drills.LookbackDays > 3650)
        {
            problems.Add($"{key}:LookbackDays must be greater than 0 and at most 3650; it is {drills.LookbackDays.ToString(CultureInfo.InvariantCulture)}.");
        }

        foreach (var (folder, name) in new[] { (drills.DataFolder, "DataFolder"), (drills.LogFolder, "LogFolder") })
        {
            if (folder is not null && (folder.Trim().Length == 0 || folder.Length > MaxFolderLength || folder.Any(char.IsControl)))
            {
                problems.Add(string.Create(CultureInfo.InvariantCulture, $"{key}:{name} must be a folder path of 1 to {MaxFolderLength} characters without control characters."));
            }
        }

        return problems;
    }
}
