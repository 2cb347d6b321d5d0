using System.Collections.Immutable;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Formats;
using BackupXe.Sources.HeaderOnly;

namespace BackupXe.Sources.Dbatools;

/// <summary>
/// dbatools' backup objects in PowerShell's list view: what <c>Backup-DbaDatabase</c> prints by default (its result has
/// more properties than a table holds) and <c>Get-DbaDbBackupHistory | Format-List</c>. One object per block of
/// <c>Name : Value</c> lines, blocks apart by blank lines; a value too long for the console goes on under the value
/// column. Start and End are msdb's whole seconds (dbatools prints them <c>yyyy-MM-dd HH:mm:ss.fff</c>), TotalSize is
/// dbatools' rounded size, and <c>Script</c> (Backup-DbaDatabase only) is the statement SMO ran, with its BUFFERCOUNT,
/// MAXTRANSFERSIZE and COMPRESSION. Streams: memory holds one object.
/// </summary>
internal sealed partial class DbaBackupListReader
{
    /// <summary>What names an object as a backup: every one of these properties in one block.</summary>
    private static readonly ImmutableArray<string> Required = ["Database", "Type", "TotalSize", "Start", "End"];

    /// <summary>Objects longer than this many lines are not dbatools' (its result has about 30 properties).</summary>
    private const int MaxLinesPerObject = 400;

    private static readonly ImmutableArray<string> DateFormats =
    [
        "yyyy-MM-dd HH:mm:ss.fff", "yyyy-MM-dd HH:mm:ss", "M/d/yyyy h:mm:ss tt", "M/d/yyyy H:mm:ss", "dd/MM/yyyy HH:mm:ss", "dd.MM.yyyy HH:mm:ss",
    ];

    private readonly List<InputProblem> _problems = [];

    public IReadOnlyList<InputProblem> Problems => _problems;

    /// <summary>The instance the objects name (the first object's SqlInstance).</summary>
    public string? Server { get; private set; }

    /// <summary>True when the prefix's first block of <c>Name : Value</c> lines has every required property.</summary>
    public static bool Recognise(TextPrefix prefix)
    {
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (var line in prefix.Lines(200).SkipWhile(string.IsNullOrWhiteSpace))
        {
            if (string.IsNullOrWhiteSpace(line))
            {
                break;
            }

            if (Property().Match(line) is { Success: true } match)
            {
                names.Add(match.Groups["name"].Value);
            }
            else if (!char.IsWhiteSpace(line[0]))
            {
                return false;
            }
        }

        return Required.All(names.Contains);
    }

    /// <summary>Each object as a history record, with the statement it ran when the object holds it.</summary>
    public IEnumerable<DbaBackupObject> Read(TextReader reader)
    {
        var block = new List<(string Name, StringBuilder Value)>();
        var lineNumber = 0;
        var blockLine = 0;
        var valueColumn = -1;
        var lines = new BoundedLineReader(reader);
        while (true)
        {
            var line = lines.ReadLine();
            if (line is not null)
            {
                lineNumber++;
            }

            if (line is null || string.IsNullOrWhiteSpace(line))
            {
                if (block.Count > 0 && Object(block, blockLine) is { } done)
                {
                    yield return done;
                }

                block.Clear();
                valueColumn = -1;
                if (line is null)
                {
                    yield break;
                }

                continue;
            }

            if (lines.Truncated)
            {
                Problem(lineNumber, $"{BoundedLineReader.CutProblem(lines.LastLineLength)}; line skipped");
                continue;
            }

            if (block.Count >= MaxLinesPerObject)
            {
                continue;
            }

            var match = Property().Match(line);
            if (match.Success && (valueColumn < 0 || match.Groups["value"].Index == valueColumn || match.Groups["value"].Length == 0))
            {
                if (block.Count == 0)
                {
                    blockLine = lineNumber;
                }

                valueColumn = match.Groups["value"].Index;
                block.Add((match.Groups["name"].Value, new StringBuilder(match.Groups["value"].Value.TrimEnd())));
            }
            else if (block.Count > 0 && char.IsWhiteSpace(line[0]))
            {
                // PowerShell wraps a long value under its column: the value goes on.
                var value = block[^1].Value;
                var text = line.Trim();
                if (value.ToString().Count(c => c == '\'') % 2 == 0 && value.Length > 0)
                {
                    value.Append(' ');
                }

                value.Append(text);
            }
            else
            {
                Problem(lineNumber, "a line that is neither 'Name : Value' nor the continuation of a value: line skipped");
            }
        }
    }

    private DbaBackupObject? Object(List<(string Name, StringBuilder Value)> block, int line)
    {
        string? Value(string name)
        {
            var found = block.FindLast(p => p.Name.Equals(name, StringComparison.OrdinalIgnoreCase));
            var text = found.Value?.ToString().Trim();
            return string.IsNullOrEmpty(text) ? null : text;
        }

        if (!Required.All(r => block.Exists(p => p.Name.Equals(r, StringComparison.OrdinalIgnoreCase))))
        {
            Problem(line, $"an object without {string.Join(", ", Required.Where(r => !block.Exists(p => p.Name.Equals(r, StringComparison.OrdinalIgnoreCase))))}: not a backup, skipped");
            return null;
        }

        if (Date(Value("Start")) is not { } start || Date(Value("End")) is not { } end || end < start)
        {
            Problem(line, $"unreadable Start '{Value("Start")}' or End '{Value("End")}' (yyyy-MM-dd HH:mm:ss.fff, End not before Start, years {ServerRanges.EarliestYear}-{ServerRanges.LatestYear}): object skipped");
            return null;
        }

        if (DbaBackupHistoryTableReader.ScopeOf(Value("Type")) is not { } scope)
        {
            Problem(line, $"unknown Type '{Value("Type")}' (Full, Differential, Log, File): object skipped");
            return null;
        }

        long? size = null;
        if (Value("TotalSize") is { } sizeText && (size = DbaBackupHistoryTableReader.Bytes(sizeText)) is null)
        {
            Problem(line, $"TotalSize '{sizeText}' is not a size (a number and B, KB, MB, GB, TB up to 2^60 bytes): object skipped");
            return null;
        }

        Server ??= Value("SqlInstance");
        var statement = Value("Script") is { } script ? BackupCommandParser.Parse(script) : null;
        var paths = Paths(Value("BackupPath") ?? Value("Path") ?? Value("FullName"));
        var kind = DbaBackupHistoryTableReader.DeviceOf(Value("DeviceType"));
        var devices = statement is { Devices.Count: > 0 }
            ? statement.Devices
            : paths.Count > 0
                ? paths.Select(p => new BackupDevice(kind ?? (p.StartsWith("https://", StringComparison.OrdinalIgnoreCase) ? DeviceKind.Url : DeviceKind.Disk), p)).ToList()
                : kind is { } k ? [new BackupDevice(k, null)] : [];
        var failed = Value("BackupComplete") is { } complete && complete.Equals("False", StringComparison.OrdinalIgnoreCase);
        // Get-DbaDbBackupHistory's objects carry msdb's LSNs, is_copy_only and recovery_model; Backup-DbaDatabase's result some of them.
        var (lsns, lsnProblem) = BackupLsns.From(Value("FirstLsn"), Value("LastLsn"), Value("DatabaseBackupLsn"), Value("CheckpointLsn"));
        if (lsnProblem is not null)
        {
            Problem(line, lsnProblem);
        }

        var options = statement is null ? new HistoryOptions() : HistoryOptions.From(statement);
        var record = new HistoryOperation
        {
            Kind = OperationKind.Backup,
            Scope = scope,
            Database = Value("Database") ?? Value("DatabaseName"),
            Start = start,
            End = end,
            TimeResolutionSeconds = 1,
            Status = failed ? OperationStatus.Failed : OperationStatus.Completed,
            BytesRead = failed ? null : size,
            Devices = devices,
            Options = options with { CopyOnly = options.CopyOnly ?? Flag(Value("IsCopyOnly")) },
            ErrorMessage = failed ? Value("Notes") : null,
            Lsns = failed ? null : lsns,
            RecoveryModel = RecoveryModels.Of(Value("RecoveryModel")),
            Sources = [HistorySource.Msdb],
        };
        return new DbaBackupObject(record, statement is not null);
    }

    /// <summary>PowerShell's True and False; anything else is not said.</summary>
    private static bool? Flag(string? text) => text?.Trim().ToUpperInvariant() switch { "TRUE" => true, "FALSE" => false, _ => null };

    /// <summary>"{X:\b\a.bak, Y:\b\b.bak}" (PowerShell's view of an array) or one path.</summary>
    private static List<string> Paths(string? value)
    {
        if (value is null)
        {
            return [];
        }

        var text = value.Trim();
        if (text.StartsWith('{') && text.EndsWith('}'))
        {
            text = text[1..^1];
        }

        // PowerShell shows at most four items of an array and "..." for the rest.
        return text.Split(", ", StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Where(p => p != "..." && !p.EndsWith("...", StringComparison.Ordinal)).ToList();
    }

    private static DateTime? Date(string? text)
        => text is not null
           && DateTime.TryParseExact(text, DateFormats.ToArray(), CultureInfo.InvariantCulture, DateTimeStyles.None, out var value)
           && ServerRanges.IsTimestamp(value)
            ? value
            : null;

    private void Problem(int line, string message) => _problems.Add(new InputProblem(string.Create(CultureInfo.InvariantCulture, $"line {line}"), message));

    // "Database             : Sales": a property name, padding, the colon, one space, the value (empty when null).
    [GeneratedRegex(@"^(?<name>[A-Za-z][A-Za-z0-9_]*)\s*: ?(?<value>.*)$", RegexOptions.CultureInvariant)]
    private static partial Regex Property();
}

/// <summary>One dbatools backup object: its history record, and whether it held the statement it ran (Backup-DbaDatabase's Script).</summary>
internal sealed record DbaBackupObject(HistoryOperation Record, bool HasStatement);
