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
/// The result of RESTORE HEADERONLY saved as tab-separated text (SSMS "Save Results As", or a notebook's table):
/// a header row naming the columns, then one row per backup set on the media. Each row is a backup as the media
/// records it: start and finish to the second, sizes, the database and the device type (Microsoft docs, "RESTORE
/// HEADERONLY": BackupType 1 database, 2 log, 4 file, 5 differential database, 6 differential file, 7 partial,
/// 8 differential partial; DeviceType 2 disk, 5 tape, 7 virtual device, 9 URL, 1xx through a logical device).
/// Columns are found by name, so any order and any extra column is read. Streams: one row at a time.
/// </summary>
internal sealed class RestoreHeaderOnlyReader
{
    private static readonly ImmutableArray<string> Required = ["BackupType", "DatabaseName", "BackupStartDate", "BackupFinishDate", "BackupSize"];

    private readonly List<InputProblem> _problems = [];

    /// <summary>Damaged rows met so far, each located ("line L").</summary>
    public IReadOnlyList<InputProblem> Problems => _problems;

    /// <summary>True when the first non-empty line is a tab-separated header holding RESTORE HEADERONLY's columns.</summary>
    public static bool Recognise(TextPrefix prefix)
    {
        var header = prefix.Lines(20).FirstOrDefault(line => !string.IsNullOrWhiteSpace(line));
        return header is not null && Columns(header) is not null;
    }

    public IEnumerable<HistoryOperation> Read(TextReader reader)
    {
        Dictionary<string, int>? columns = null;
        var lineNumber = 0;
        var rows = 0;

        // Bounded like every text input's lines: one 20 MB cell must not become a 40 MB string, split again.
        var lines = new BoundedLineReader(reader);
        while (lines.ReadLine() is { } line)
        {
            lineNumber++;
            if (string.IsNullOrWhiteSpace(line))
            {
                continue;
            }

            if (columns is null)
            {
                columns = Columns(line);
                if (columns is null)
                {
                    Problem(lineNumber, "not a RESTORE HEADERONLY header row (BackupType, DatabaseName, BackupStartDate, BackupFinishDate, BackupSize)");
                    yield break;
                }

                continue;
            }

            rows++;
            if (lines.Truncated)
            {
                // The cells after the cut are lost, and the cut cell is not the media's value.
                Problem(lineNumber, $"{BoundedLineReader.CutProblem(lines.LastLineLength)}; row skipped");
                continue;
            }

            if (Row(line.Split('\t'), columns, lineNumber) is { } operation)
            {
                yield return operation;
            }
        }

        if (columns is not null && rows == 0)
        {
            // RESTORE HEADERONLY on media without a backup set fails instead of returning an empty result.
            Problem(lineNumber, "the header row is not followed by any backup set: the file was cut after its header");
        }
    }

    private static Dictionary<string, int>? Columns(string header)
    {
        var names = header.Split('\t');
        var columns = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < names.Length; i++)
        {
            columns.TryAdd(names[i].Trim(), i);
        }

        return Required.All(columns.ContainsKey) ? columns : null;
    }

    private HistoryOperation? Row(string[] cells, Dictionary<string, int> columns, int line)
    {
        string? Cell(string name) => columns.TryGetValue(name, out var i) && i < cells.Length
            && cells[i].Trim() is { Length: > 0 } value && !value.Equals("NULL", StringComparison.OrdinalIgnoreCase) ? value : null;

        long? Number(string name) => Cell(name) is { } text && long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? value : null;

        DateTime? Date(string name) => Cell(name) is { } text && DateTime.TryParseExact(text,
            ["yyyy-MM-dd HH:mm:ss.fff", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-ddTHH:mm:ss.fff", "yyyy-MM-ddTHH:mm:ss"],
            CultureInfo.InvariantCulture, DateTimeStyles.None, out var value) ? value : null;

        bool? Flag(string name) => Number(name) switch { 0 => false, 1 => true, _ => null };

        if (Date("BackupStartDate") is not { } start)
        {
            Problem(line, $"unreadable BackupStartDate '{Cell("BackupStartDate")}': row skipped");
            return null;
        }

        var finish = Date("BackupFinishDate");
        if (!ServerRanges.IsTimestamp(start) || finish is { } f && !ServerRanges.IsTimestamp(f))
        {
            Problem(line, $"a date outside the years {ServerRanges.EarliestYear}-{ServerRanges.LatestYear} that a server's clock shows (BackupStartDate '{Cell("BackupStartDate")}', BackupFinishDate '{Cell("BackupFinishDate")}'): row skipped");
            return null;
        }

        // A size that is there must be one a server writes: 1e30, a negative number or a word is damage, not "unknown".
        foreach (var column in (ReadOnlySpan<string>)["BackupSize", "CompressedBackupSize"])
        {
            if (Cell(column) is { } text && Number(column) is not (>= 0 and <= ServerRanges.MaxBytes))
            {
                Problem(line, $"{column} '{text}' is not a size in bytes from 0 to 2^60: row skipped");
                return null;
            }
        }

        var size = Number("BackupSize");
        var written = Number("CompressedBackupSize") ?? size;
        if (finish < start)
        {
            Problem(line, "BackupFinishDate before BackupStartDate: row skipped");
            return null;
        }

        if (Scope(Number("BackupType")) is not { } scope)
        {
            Problem(line, $"unknown BackupType '{Cell("BackupType")}': row skipped");
            return null;
        }

        var encrypted = Encryption(Cell("KeyAlgorithm"), Cell("EncryptorThumbprint"));
        var (lsns, lsnProblem) = BackupLsns.From(Cell("FirstLSN"), Cell("LastLSN"), Cell("DatabaseBackupLSN"), Cell("CheckpointLSN"));
        if (lsnProblem is not null)
        {
            Problem(line, lsnProblem);
        }

        return new HistoryOperation
        {
            Kind = OperationKind.Backup,
            Scope = scope,
            Database = Cell("DatabaseName"),
            Start = start,
            End = finish,
            TimeResolutionSeconds = 1,
            Status = OperationStatus.Completed,
            BytesRead = size,
            BytesWritten = written,
            // The header names the device type, not the device: RESTORE HEADERONLY was run against it.
            Devices = Device(Number("DeviceType")) is { } kind ? [new BackupDevice(kind, null)] : [],
            Options = new HistoryOptions
            {
                Compression = Flag("Compressed"),
                CopyOnly = Flag("IsCopyOnly"),
                Checksum = Flag("HasBackupChecksums"),
                Encryption = encrypted,
                EncryptionAlgorithm = encrypted is true ? Cell("KeyAlgorithm") : null,
                Encryptor = encrypted is true ? Cell("EncryptorType") : null,
            },
            ServerBuild = Number("SoftwareVersionMajor") is { } major and > 0 && Number("SoftwareVersionMinor") is { } minor
                && Number("SoftwareVersionBuild") is { } build
                ? string.Create(CultureInfo.InvariantCulture, $"{major}.{minor}.{build}")
                : null,
            // IsSnapshot 1: a snapshot backup, whose size over its time is no transfer speed (counted apart).
            Snapshot = Flag("IsSnapshot") is true,
            Lsns = lsns,
            RecoveryModel = RecoveryModels.Of(Cell("RecoveryModel")),
            // BindingID is the database's database_guid (new after a restore); FamilyGUID the original database's.
            Identity = DatabaseIdentity.Of(DatabaseIdentity.Parse(Cell("FamilyGUID")), DatabaseIdentity.Parse(Cell("BindingID")), null),
            Sources = [HistorySource.BackupHeader],
        };
    }

    private static OperationScope? Scope(long? backupType) => backupType switch
    {
        1 or 7 => OperationScope.Database,
        2 => OperationScope.Log,
        4 => OperationScope.File,
        5 or 6 or 8 => OperationScope.Differential,
        _ => null,
    };

    /// <summary>
    /// KeyAlgorithm is the algorithm, or NO_Encryption for a backup that is not encrypted (RESTORE HEADERONLY page);
    /// an encryptor's thumbprint is only there for an encrypted one.
    /// </summary>
    private static bool? Encryption(string? keyAlgorithm, string? thumbprint)
    {
        var notEncrypted = string.Equals(keyAlgorithm, "NO_Encryption", StringComparison.OrdinalIgnoreCase);
        return thumbprint is not null || (keyAlgorithm is not null && !notEncrypted) ? true
            : notEncrypted ? false
            : null;
    }

    private static DeviceKind? Device(long? deviceType) => (deviceType % 100) switch
    {
        2 => DeviceKind.Disk,
        5 => DeviceKind.Tape,
        7 => DeviceKind.Virtual,
        9 => DeviceKind.Url,
        _ => null,
    };

    private void Problem(int line, string message)
        => _problems.Add(new InputProblem(string.Create(CultureInfo.InvariantCulture, $"line {line}"), message));
}
