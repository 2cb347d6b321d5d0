using System.Collections.Immutable;
using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.HeaderOnly;

/// <summary>
/// dbatools' <c>Get-DbaDbBackupHistory</c> printed as a table (its default view, or <c>| Format-Table</c>): msdb's backup
/// history, one row per backup set, under a heading <c>SqlInstance Database Type TotalSize DeviceType Start Duration End</c>
/// and its dashed underline, which gives each column's place. Start and End are msdb's whole seconds, TotalSize is rounded
/// by dbatools to two decimals of its unit. Several tables may follow each other (each with its heading). Streams.
/// </summary>
internal sealed class DbaBackupHistoryTableReader
{
    private static readonly ImmutableArray<string> Required = ["SqlInstance", "Database", "Type", "TotalSize", "Start", "End"];

    private readonly List<InputProblem> _problems = [];

    public IReadOnlyList<InputProblem> Problems => _problems;

    /// <summary>The instance the rows name (the first row's SqlInstance).</summary>
    public string? Server { get; private set; }

    /// <summary>True when the first non-empty line is the table's heading and the next its dashed underline.</summary>
    public static bool Recognise(TextPrefix prefix)
    {
        var lines = prefix.Lines(20).Where(line => !string.IsNullOrWhiteSpace(line)).Take(2).ToList();
        return lines.Count == 2 && Columns(lines[0], lines[1]) is not null;
    }

    public IEnumerable<HistoryOperation> Read(TextReader reader)
    {
        List<(string Name, int Start, int End)>? columns = null;
        string? heading = null;
        var seen = new HashSet<(string?, OperationScope, DateTime)>();
        var lineNumber = 0;
        var lines = new BoundedLineReader(reader);
        while (lines.ReadLine() is { } line)
        {
            lineNumber++;
            if (string.IsNullOrWhiteSpace(line))
            {
                heading = null;
                continue;
            }

            if (heading is not null && Columns(heading, line) is { } found)
            {
                columns = found;
                heading = null;
                continue;
            }

            if (Columns(line, null) is not null)
            {
                heading = line;
                continue;
            }

            if (columns is null)
            {
                Problem(lineNumber, "a row before any Get-DbaDbBackupHistory heading (SqlInstance Database Type TotalSize ... Start ... End): line skipped");
                continue;
            }

            if (lines.Truncated)
            {
                Problem(lineNumber, $"{BoundedLineReader.CutProblem(lines.LastLineLength)}; row skipped");
                continue;
            }

            // The same backup set listed again by a later table (another call of the command) is one backup.
            if (Row(line, columns, lineNumber) is { } operation && seen.Add((operation.Database?.ToUpperInvariant(), operation.Scope, operation.Start)))
            {
                yield return operation;
            }
        }
    }

    /// <summary>The columns' names and places, from a heading and its dashed underline (null: only whether the heading could be one).</summary>
    private static List<(string Name, int Start, int End)>? Columns(string heading, string? underline)
    {
        var names = heading.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (!Required.All(r => names.Contains(r, StringComparer.OrdinalIgnoreCase)))
        {
            return null;
        }

        if (underline is null)
        {
            return [];
        }

        if (underline.Trim().Trim('-', ' ').Length > 0)
        {
            return null;
        }

        var columns = new List<(string Name, int Start, int End)>();
        for (var i = 0; i < underline.Length; i++)
        {
            if (underline[i] == '-' && (i == 0 || underline[i - 1] == ' '))
            {
                var end = underline.IndexOf(' ', i);
                var name = heading.Length > i ? heading[i..Math.Min(heading.Length, end < 0 ? heading.Length : end)].Trim() : string.Empty;
                columns.Add((name, i, -1));
            }
        }

        // A column runs to the start of the next one: right-aligned values end under their dashes, left-aligned ones start there.
        for (var i = 0; i < columns.Count; i++)
        {
            columns[i] = columns[i] with { End = i + 1 < columns.Count ? columns[i + 1].Start : int.MaxValue };
        }

        return Required.All(r => columns.Any(c => c.Name.Equals(r, StringComparison.OrdinalIgnoreCase))) ? columns : null;
    }

    private HistoryOperation? Row(string line, List<(string Name, int Start, int End)> columns, int lineNumber)
    {
        string? Cell(string name)
        {
            var column = columns.Find(c => c.Name.Equals(name, StringComparison.OrdinalIgnoreCase));
            if (column.Name is null || column.Start >= line.Length)
            {
                return null;
            }

            var value = line[column.Start..Math.Min(line.Length, column.End)].Trim();
            return value.Length > 0 ? value : null;
        }

        DateTime? Date(string name) => Cell(name) is { } text
            && (DateTime.TryParseExact(text, "yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture, DateTimeStyles.None, out var value)
                || DateTime.TryParseExact(text, "yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture, DateTimeStyles.None, out value)) ? value : null;

        if (Date("Start") is not { } start || Date("End") is not { } end || end < start || !ServerRanges.IsTimestamp(start) || !ServerRanges.IsTimestamp(end))
        {
            Problem(lineNumber, $"unreadable Start '{Cell("Start")}' or End '{Cell("End")}' (yyyy-MM-dd HH:mm:ss.fff, End not before Start, years {ServerRanges.EarliestYear}-{ServerRanges.LatestYear}): row skipped");
            return null;
        }

        if (ScopeOf(Cell("Type")) is not { } scope)
        {
            Problem(lineNumber, $"unknown Type '{Cell("Type")}' (Full, Differential, Log, File): row skipped");
            return null;
        }

        long? size = null;
        if (Cell("TotalSize") is { } sizeText && (size = Bytes(sizeText)) is null)
        {
            Problem(lineNumber, $"TotalSize '{sizeText}' is not a size (a number and B, KB, MB, GB, TB up to 2^60 bytes): row skipped");
            return null;
        }

        Server ??= Cell("SqlInstance");
        // The default table has no LSNs; a table of chosen properties (Format-Table ..., FirstLsn, LastLsn) may have them.
        var (lsns, lsnProblem) = BackupLsns.From(Cell("FirstLsn"), Cell("LastLsn"), Cell("DatabaseBackupLsn"), Cell("CheckpointLsn"));
        if (lsnProblem is not null)
        {
            Problem(lineNumber, lsnProblem);
        }

        return new HistoryOperation
        {
            Kind = OperationKind.Backup,
            Scope = scope,
            Database = Cell("Database"),
            Start = start,
            End = end,
            TimeResolutionSeconds = 1,
            Status = OperationStatus.Completed,
            BytesRead = size,
            Devices = DeviceOf(Cell("DeviceType")) is { } kind ? [new BackupDevice(kind, null)] : [],
            Options = new HistoryOptions { CopyOnly = Cell("IsCopyOnly")?.ToUpperInvariant() switch { "TRUE" => true, "FALSE" => false, _ => null } },
            Lsns = lsns,
            RecoveryModel = RecoveryModels.Of(Cell("RecoveryModel")),
            Sources = [HistorySource.Msdb],
        };
    }

    // dbatools' names for msdb's backupset.type: D Full, I Differential, L Log, F File, G Differential File, P Partial Full, Q Partial Differential.
    internal static OperationScope? ScopeOf(string? type) => type switch
    {
        null => null,
        _ when type.Contains("Log", StringComparison.OrdinalIgnoreCase) => OperationScope.Log,
        _ when type.Contains("Differential", StringComparison.OrdinalIgnoreCase) => OperationScope.Differential,
        _ when type.Equals("File", StringComparison.OrdinalIgnoreCase) => OperationScope.File,
        _ when type.Contains("Full", StringComparison.OrdinalIgnoreCase) => OperationScope.Database,
        _ => null,
    };

    internal static DeviceKind? DeviceOf(string? deviceType) => deviceType?.ToUpperInvariant() switch
    {
        "DISK" => DeviceKind.Disk,
        "URL" => DeviceKind.Url,
        "TAPE" => DeviceKind.Tape,
        "VIRTUAL DEVICE" or "VIRTUAL" => DeviceKind.Virtual,
        _ => null,
    };

    /// <summary>"7.00 GB", "813.00 KB": dbatools' size, in units of 1024; the two decimals make it exact to half a hundredth of the unit.</summary>
    internal static long? Bytes(string text)
    {
        var parts = text.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length != 2 || !decimal.TryParse(parts[0], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value))
        {
            return null;
        }

        var unit = parts[1].ToUpperInvariant() switch
        {
            "B" or "BYTES" => 1m,
            "KB" => 1024m,
            "MB" => 1024m * 1024,
            "GB" => 1024m * 1024 * 1024,
            "TB" => 1024m * 1024 * 1024 * 1024,
            _ => 0m,
        };
        if (unit == 0 || value > ServerRanges.MaxBytes / unit)
        {
            return null;
        }

        return (long)Math.Round(value * unit, MidpointRounding.AwayFromZero);
    }

    private void Problem(int line, string message) => _problems.Add(new InputProblem($"line {line}", message));
}
