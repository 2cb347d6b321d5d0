using System.Globalization;
using System.Text.RegularExpressions;

namespace BackupXe.Core.Events;

/// <summary>
/// The SQL Server an input came from, as the input itself says: the version banner an ERRORLOG begins with (the first
/// line of @@VERSION, "Microsoft SQL Server 2014 - 12.0.2000.8 (X64)"), or the "Version: 12.0.4100.1" line
/// (SERVERPROPERTY('ProductVersion')) that Ola Hallengren's DatabaseBackup prints in its header, the version a live
/// connection's login response carries, or, with the release alone, the database version a restore converted to.
/// </summary>
/// <param name="Major">The product major version: 9 for SQL Server 2005 ... 16 for 2022.</param>
/// <param name="Minor">The minor version: 50 tells SQL Server 2008 R2 from 2008.</param>
/// <param name="Build">The version as printed ("12.0.2000.8"); null when only the release is known (a database version).</param>
/// <param name="Evidence">Where the input says it ("the ERRORLOG's version banner, line 1").</param>
public sealed partial record ServerVersion(int Major, int Minor, string? Build, string Evidence)
{
    /// <summary>backup_restore_progress_trace, which BackupXe's session captures, arrived in SQL Server 2016 (13.x).</summary>
    public const int FirstWithProgressTrace = 13;

    /// <summary>BACKUP ... WITH COPY_ONLY arrived in SQL Server 2005 (9.x).</summary>
    public const int FirstWithCopyOnly = 9;

    /// <summary>The catalog views (sys.master_files) replaced SQL Server 2000's system tables (sysaltfiles) in 2005 (9.x).</summary>
    public const int FirstWithCatalogViews = 9;

    /// <summary>BACKUP ... WITH COMPRESSION arrived in SQL Server 2008 (10.x).</summary>
    public const int FirstWithCompression = 10;

    /// <summary>BACKUP ... WITH COMPRESSION (ALGORITHM = QAT_DEFLATE), Intel QuickAssist offload, arrived in SQL Server 2022 (16.x).</summary>
    public const int FirstWithQat = 16;

    /// <summary>BACKUP ... WITH COMPRESSION (ALGORITHM = ZSTD, LEVEL = ...) arrived in SQL Server 2025 (17.x).</summary>
    public const int FirstWithZstd = 17;

    /// <summary>How @@VERSION's text, and so an ERRORLOG's banner, begins.</summary>
    public const string BannerStart = "Microsoft SQL Server ";

    // Every product since SQL Server 7.0 (7.x); a larger number is not a version any server has printed.
    private const int EarliestMajor = 7;
    private const int LatestMajor = 30;

    /// <summary>False before SQL Server 2016: no backup_restore_progress_trace, so trace flags are the only step-level capture.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public bool HasProgressTrace => Major >= FirstWithProgressTrace;

    /// <summary>"SQL Server 2014", "SQL Server 2008 R2".</summary>
    public string Product => ProductName(Major, Minor);

    /// <summary>"SQL Server 2014 (12.0.2000.8, from the ERRORLOG's version banner, line 1)", or without the build when it is not known.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public string Described => Build is null ? $"{Product} (from {Evidence})" : $"{Product} ({Build}, from {Evidence})";

    /// <summary>
    /// Whether this server is at least <paramref name="major"/>.<paramref name="minor"/>.<paramref name="build"/>
    /// (a service pack's first build); null when only the release is known and the build alone would tell.
    /// </summary>
    public bool? IsAtLeast(int major, int minor, int build)
    {
        if (Major != major)
        {
            return Major > major;
        }

        if (Minor != minor)
        {
            return Minor > minor;
        }

        var parts = Build?.Split('.');
        return parts is { Length: >= 3 } && int.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var number)
            ? number >= build
            : null;
    }

    /// <summary>The marketing name of a major (and minor) version; "SQL Server 13.x" for one this table does not know.</summary>
    public static string ProductName(int major, int? minor = null) => major switch
    {
        7 => "SQL Server 7.0",
        8 => "SQL Server 2000",
        9 => "SQL Server 2005",
        10 when minor == 50 => "SQL Server 2008 R2",
        10 when minor is null => "SQL Server 2008 / 2008 R2",
        10 => "SQL Server 2008",
        11 => "SQL Server 2012",
        12 => "SQL Server 2014",
        13 => "SQL Server 2016",
        14 => "SQL Server 2017",
        15 => "SQL Server 2019",
        16 => "SQL Server 2022",
        17 => "SQL Server 2025",
        _ => string.Create(CultureInfo.InvariantCulture, $"SQL Server {major}.x"),
    };

    /// <summary>The version in @@VERSION's first line ("Microsoft SQL Server 2008 R2 (SP2) - 10.50.4266.0 (X64)"), or null.</summary>
    public static ServerVersion? FromBanner(string text, string evidence)
    {
        var match = BannerPattern().Match(text);
        return match.Success ? FromBuild(match.Groups["build"].Value, evidence) : null;
    }

    /// <summary>A product version as SERVERPROPERTY('ProductVersion') prints it ("12.0.4100.1"), or null when it is not one.</summary>
    public static ServerVersion? FromBuild(string build, string evidence)
    {
        var match = BuildPattern().Match(build.Trim());
        if (!match.Success
            || !int.TryParse(match.Groups["major"].Value, NumberStyles.None, CultureInfo.InvariantCulture, out var major)
            || !int.TryParse(match.Groups["minor"].Value, NumberStyles.None, CultureInfo.InvariantCulture, out var minor)
            || major is < EarliestMajor or > LatestMajor)
        {
            return null;
        }

        return new ServerVersion(major, minor, match.Value, evidence);
    }

    /// <summary>
    /// The release whose "current version" a restore converted a database to ("Converting database 'D' from version 661
    /// to the current version 706."): 706 is SQL Server 2012. Only release numbers are known (docs/diagnosis.md,
    /// "Remedies for the input's server", gives the table and its sources), so the build stays unknown; null for any
    /// other number (a pre-release build's, or a release this table does not know).
    /// </summary>
    public static ServerVersion? FromDatabaseVersion(int databaseVersion, string where)
    {
        (int Major, int Minor)? release = databaseVersion switch
        {
            515 => (7, 0),
            539 => (8, 0),
            611 or 612 => (9, 0),
            655 => (10, 0),
            660 or 661 => (10, 50),
            706 => (11, 0),
            782 => (12, 0),
            852 => (13, 0),
            868 or 869 => (14, 0),
            904 => (15, 0),
            957 => (16, 0),
            _ => null,
        };
        return release is { } known
            ? new ServerVersion(known.Major, known.Minor, null, $"database version {databaseVersion.ToString(CultureInfo.InvariantCulture)} in the 'Converting database' message, {where}")
            : null;
    }

    [GeneratedRegex(@"^Microsoft SQL Server [^\r\n]{0,120}? - (?<build>\d{1,2}\.\d{1,2}\.\d{1,5}(?:\.\d{1,5})?)\b", RegexOptions.CultureInvariant)]
    private static partial Regex BannerPattern();

    [GeneratedRegex(@"^(?<major>\d{1,2})\.(?<minor>\d{1,2})\.\d{1,5}(?:\.\d{1,5})?$", RegexOptions.CultureInvariant)]
    private static partial Regex BuildPattern();
}
