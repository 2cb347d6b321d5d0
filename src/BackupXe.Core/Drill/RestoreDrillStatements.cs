using System.Globalization;
using System.Text;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Restores;
using BackupXe.Core.Tuning;

namespace BackupXe.Core.Drill;

/// <summary>One file of the scratch database: a logical file of the backup (RESTORE FILELISTONLY) and the new file it is restored to.</summary>
/// <param name="Type">FILELISTONLY's Type: D data, L log, F full-text catalog, S FILESTREAM or memory-optimized container.</param>
public sealed record DrillMove(string LogicalName, string Type, long SizeBytes, string Path)
{
    public bool IsLog => Type == "L";
}

/// <summary>One backup set the drill restores: the set the plan chose, the devices msdb names for it and its position on them.</summary>
/// <param name="Position">backupset.position: the FILE = n of the set on its media set.</param>
public sealed record DrillBackup(PlannedBackup Set, IReadOnlyList<string> Devices, int Position)
{
    /// <summary>full, differential or log, as the plan says it.</summary>
    public string Kind => Set.Type switch { 'D' => "full", 'I' => "differential", _ => "log" };
}

/// <summary>
/// The T-SQL of a restore drill (docs/commands/restore-drill.md): the database always as a bracketed name with ] doubled,
/// every path and logical name as an N'' literal with ' doubled, never REPLACE (the RESTORE page: without it the server
/// refuses to overwrite an existing database of another backup and existing files), every file moved (WITH MOVE).
/// No STATS on the RESTOREs, as on the tune's trials (TrialStatement): a progress message would leave a Ctrl-C unable to
/// stop the RESTORE on the server; the phases come from the capture session.
/// </summary>
public static class RestoreDrillStatements
{
    /// <summary>sysname's length: a scratch name longer than it is cut from the source's name.</summary>
    public const int MaxNameLength = 128;

    /// <summary>"SalesDB_drill_202611290915": the source's name, "_drill_" and the minute the drill was planned (UTC).</summary>
    public static string ScratchName(string database, DateTime utc)
    {
        var suffix = string.Create(CultureInfo.InvariantCulture, $"_drill_{utc:yyyyMMddHHmm}");
        return (database.Length + suffix.Length > MaxNameLength ? database[..(MaxNameLength - suffix.Length)] : database) + suffix;
    }

    /// <summary>Every file of the backup moved: data, full-text and FILESTREAM under <paramref name="dataFolder"/>, logs under <paramref name="logFolder"/>, each named after the scratch database.</summary>
    public static IReadOnlyList<DrillMove> Moves(IReadOnlyList<BackupFileEntry> files, string scratch, string dataFolder, string logFolder)
    {
        ArgumentNullException.ThrowIfNull(files);
        return files.Select((file, i) =>
        {
            var extension = file.Type switch { "L" => ".ldf", "S" => string.Empty, _ => i == 0 ? ".mdf" : ".ndf" };
            var folder = file.Type == "L" ? logFolder : dataFolder;
            return new DrillMove(file.LogicalName, file.Type, file.SizeBytes, TrialStatement.Join(folder, string.Create(CultureInfo.InvariantCulture, $"{scratch}_{i + 1}{extension}")));
        }).ToList();
    }

    public static string HeaderOnly(DrillBackup backup) => $"RESTORE HEADERONLY FROM {From(backup)};";

    public static string FileListOnly(DrillBackup backup) => $"RESTORE FILELISTONLY FROM {From(backup)} WITH FILE = {Position(backup)};";

    public static string VerifyOnly(DrillBackup backup) => $"RESTORE VERIFYONLY FROM {From(backup)} WITH FILE = {Position(backup)};";

    /// <summary>The full backup into the new scratch database, every file moved, left restoring for what follows.</summary>
    public static string RestoreFull(string scratch, DrillBackup full, IReadOnlyList<DrillMove> moves)
    {
        ArgumentNullException.ThrowIfNull(moves);
        var options = new List<string> { $"FILE = {Position(full)}" };
        options.AddRange(moves.Select(m => $"MOVE {Tsql.Literal(m.LogicalName)} TO {Tsql.Literal(m.Path)}"));
        options.Add("NORECOVERY");
        return Statement("DATABASE", scratch, full, options);
    }

    public static string RestoreDifferential(string scratch, DrillBackup differential)
        => Statement("DATABASE", scratch, differential, [$"FILE = {Position(differential)}", "NORECOVERY"]);

    /// <param name="stopAt">The point in time, server local time, as STOPAT takes it; null for the whole log backup.</param>
    public static string RestoreLog(string scratch, DrillBackup log, DateTime? stopAt)
    {
        var options = new List<string> { $"FILE = {Position(log)}", "NORECOVERY" };
        if (stopAt is { } at)
        {
            options.Add("STOPAT = " + Tsql.Literal(at.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture)));
        }

        return Statement("LOG", scratch, log, options);
    }

    /// <summary>Brings the scratch database online once every backup is restored: redo is done, undo and recovery run here.</summary>
    public static string Recover(string scratch) => $"RESTORE DATABASE {Tsql.Name(scratch)} WITH RECOVERY;";

    public static string CheckDb(string scratch) => $"DBCC CHECKDB ({Tsql.Name(scratch)}) WITH NO_INFOMSGS;";

    /// <summary>Removes the scratch database and the files the RESTORE created (DROP DATABASE deletes them), also while it is restoring.</summary>
    public static string Drop(string scratch) => $"DROP DATABASE {Tsql.Name(scratch)};";

    private static string Statement(string what, string scratch, DrillBackup backup, IEnumerable<string> options)
    {
        var sql = new StringBuilder();
        sql.Append("RESTORE ").Append(what).Append(' ').Append(Tsql.Name(scratch)).Append('\n');
        sql.Append("FROM ").Append(From(backup)).Append('\n');
        sql.Append("WITH ").AppendJoin(",\n     ", options).Append(';');
        return sql.ToString();
    }

    private static string From(DrillBackup backup) => string.Join(", ", backup.Devices.Select(Tsql.Device));

    private static string Position(DrillBackup backup) => Tsql.Number(backup.Position);
}
