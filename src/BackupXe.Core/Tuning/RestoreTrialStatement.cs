using System.Globalization;
using System.Text;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Tuning;

/// <summary>One file of a backup as RESTORE FILELISTONLY lists it: its logical name, its type (D data, L log, F full-text, S FILESTREAM) and size.</summary>
public sealed record BackupFileEntry(string LogicalName, string Type, long SizeBytes);

/// <summary>
/// The RESTORE of one restore trial: the backup restored into a new scratch database (backupxe_tune_{run id}_rNN),
/// every file moved to a new file under the scratch directory (WITH MOVE), never WITH REPLACE: the RESTORE page says
/// that without REPLACE the server refuses to overwrite an existing database of another backup and existing files,
/// and the tuner checks before each trial that the scratch name is not in use. The database as a bracketed name and
/// every path as an N'' literal with quotes doubled. The scratch database is dropped after the trial (<see cref="DropSql"/>).
/// </summary>
public sealed class RestoreTrialStatement
{
    private RestoreTrialStatement(string database, IReadOnlyList<string> from, IReadOnlyList<(string LogicalName, string Path)> moves, int? bufferCount, long? maxTransferSizeBytes)
    {
        Database = database;
        From = from;
        Moves = moves;
        BufferCount = bufferCount;
        MaxTransferSizeBytes = maxTransferSizeBytes;
    }

    /// <summary>The scratch database the trial creates.</summary>
    public string Database { get; }

    public IReadOnlyList<string> From { get; }

    /// <summary>Each logical file of the backup and the new file it is restored to.</summary>
    public IReadOnlyList<(string LogicalName, string Path)> Moves { get; }

    public int? BufferCount { get; }

    public long? MaxTransferSizeBytes { get; }

    /// <summary>"backupxe_tune_1a2b3c4d_r01" (the first run of a trial), "backupxe_tune_1a2b3c4d_r01_2" (its repeats): unique to the run, the trial and the repeat.</summary>
    public static string ScratchName(string runId, int trial, int run = 1) => run == 1
        ? string.Create(CultureInfo.InvariantCulture, $"backupxe_tune_{runId}_r{trial:00}")
        : string.Create(CultureInfo.InvariantCulture, $"backupxe_tune_{runId}_r{trial:00}_{run}");

    /// <summary>The trial's statement: every file of <paramref name="files"/> moved under <paramref name="scratchDirectory"/> with a name of its own.</summary>
    public static RestoreTrialStatement Of(IReadOnlyList<string> from, IReadOnlyList<BackupFileEntry> files, string scratchDirectory, string runId, int trial, int? bufferCount, long? maxTransferSizeBytes, int run = 1)
    {
        ArgumentNullException.ThrowIfNull(files);
        var name = ScratchName(runId, trial, run);
        var moves = files.Select((file, i) => (file.LogicalName, TrialStatement.Join(scratchDirectory, string.Create(CultureInfo.InvariantCulture, $"{name}_{i + 1}{Extension(file.Type, i)}"))))
            .ToList();
        return new RestoreTrialStatement(name, from, moves, bufferCount, maxTransferSizeBytes);
    }

    /// <summary>"BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB", the server's default for what is not set.</summary>
    public string Describe() =>
        $"{(BufferCount is { } count ? $"BUFFERCOUNT {count.ToString(CultureInfo.InvariantCulture)}" : "default BUFFERCOUNT")}, {(MaxTransferSizeBytes is { } size ? $"MAXTRANSFERSIZE {Figures.Memory(size)}" : "default MAXTRANSFERSIZE")}";

    /// <summary>The statement as sent, ending with ';'.</summary>
    public string Sql
    {
        get
        {
            var options = Moves.Select(m => $"MOVE {Tsql.Literal(m.LogicalName)} TO {Tsql.Literal(m.Path)}").ToList();
            if (BufferCount is { } count)
            {
                options.Add($"BUFFERCOUNT = {Tsql.Number(count)}");
            }

            if (MaxTransferSizeBytes is { } size)
            {
                options.Add($"MAXTRANSFERSIZE = {Tsql.Number(size)}");
            }

            var sql = new StringBuilder();
            sql.Append("RESTORE DATABASE ").Append(Tsql.Name(Database)).Append('\n');
            sql.Append("FROM ").AppendJoin(",\n     ", From.Select(Tsql.Device)).Append('\n');
            sql.Append("WITH ").AppendJoin(",\n     ", options).Append(';');
            return sql.ToString();
        }
    }

    /// <summary>Removes the scratch database and, with it, the files the RESTORE created (DROP DATABASE deletes a database's files).</summary>
    public string DropSql => $"DROP DATABASE {Tsql.Name(Database)};";

    /// <summary>A FILELISTONLY of the backup: the logical files the trial moves.</summary>
    public static string FileListSql(IReadOnlyList<string> from) => "RESTORE FILELISTONLY FROM " + string.Join(", ", from.Select(Tsql.Device)) + ";";

    private static string Extension(string type, int index) => type switch
    {
        "L" => ".ldf",
        "S" => string.Empty,
        _ => index == 0 ? ".mdf" : ".ndf",
    };
}
