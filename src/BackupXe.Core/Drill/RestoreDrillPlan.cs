using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Restores;
using BackupXe.Core.Tuning;

namespace BackupXe.Core.Drill;

/// <summary>What the DBA asked of the drill: the source database, where it is restored, and what runs after.</summary>
/// <param name="Scratch">The scratch database's name; null for <see cref="RestoreDrillStatements.ScratchName"/>.</param>
/// <param name="DataFolder">The folder on the target server for data files; null for the server's default data path.</param>
/// <param name="LogFolder">The folder for log files; null for the server's default log path.</param>
/// <param name="StopAt">A point in time (server local time of the source) to stop the log restores at; null for the end of the chain.</param>
public sealed record DrillRequest(string Database, string? Scratch, string? DataFolder, string? LogFolder, DateTime? StopAt, bool CheckDb, bool Keep, bool AllowSourceServer);

/// <summary>
/// Who a server is, as the server itself says: SERVERPROPERTY('MachineName') (the computer, or a cluster's virtual
/// name) and SERVERPROPERTY('InstanceName') (null for the default instance), with @@SERVERNAME as shown. Two connections
/// reach the same server when machine and instance agree, whatever name, alias, address or port each was given.
/// </summary>
public sealed record ServerIdentity(string? ServerName, string? MachineName, string? InstanceName)
{
    /// <summary>The default instance's name, which SERVERPROPERTY('InstanceName') reports as NULL.</summary>
    public const string DefaultInstance = "MSSQLSERVER";

    /// <summary>True when both name the same machine and instance; null when either did not say its machine.</summary>
    public bool? SameAs(ServerIdentity other)
    {
        ArgumentNullException.ThrowIfNull(other);
        if (string.IsNullOrEmpty(MachineName) || string.IsNullOrEmpty(other.MachineName))
        {
            return null;
        }

        return string.Equals(MachineName, other.MachineName, StringComparison.OrdinalIgnoreCase)
            && string.Equals(InstanceName ?? DefaultInstance, other.InstanceName ?? DefaultInstance, StringComparison.OrdinalIgnoreCase);
    }

    public override string ToString() => $"{MachineName ?? "?"}\\{InstanceName ?? DefaultInstance} (@@SERVERNAME {ServerName ?? "?"})";
}

/// <summary>A folder the scratch files go to, the bytes they take there, and the free bytes the server reports (null: cannot tell, with why).</summary>
public sealed record DrillSpace(string Folder, long NeededBytes, long? AvailableBytes, string? Unknown)
{
    public bool Short => AvailableBytes is { } available && available < NeededBytes;
}

/// <summary>One statement of the drill and the phase it measures.</summary>
public sealed record DrillStep(string Phase, string Sql);

/// <summary>
/// The drill as planned (printed without --execute, run with it): the chain's backups and their devices, the scratch
/// database and every file moved, the checks before the first restore, the restores in order, the space and the
/// permissions it needs, the estimate, and what refuses it (<see cref="Refusals"/>: --execute runs nothing while any stands).
/// </summary>
public sealed record RestoreDrillPlan
{
    public required string Database { get; init; }
    public required string Scratch { get; init; }
    public required string TargetServer { get; init; }
    public required string SourceServer { get; init; }
    public ServerIdentity? TargetIdentity { get; init; }
    public ServerIdentity? SourceIdentity { get; init; }
    public IReadOnlyList<DrillBackup> Backups { get; init; } = [];
    public IReadOnlyList<DrillMove> Moves { get; init; } = [];
    public IReadOnlyList<DrillStep> Preflight { get; init; } = [];
    public IReadOnlyList<DrillStep> Steps { get; init; } = [];
    public required string DropSql { get; init; }
    public IReadOnlyList<DrillSpace> Space { get; init; } = [];
    public IReadOnlyList<string> Permissions { get; init; } = [];
    public RestoreEstimateReport? Estimate { get; init; }
    public DateTime? StopAt { get; init; }
    public bool CheckDb { get; init; }
    public bool Keep { get; init; }
    public IReadOnlyList<string> Refusals { get; init; } = [];
    public IReadOnlyList<string> Notes { get; init; } = [];

    /// <summary>Whether each RESTORE is measured inside the server by the capture session (running on the target when planned).</summary>
    public bool Captured { get; init; }
}

/// <summary>One set's media as msdb records it (backupset joined to backupmediafamily), found by type and LSNs.</summary>
public sealed record DrillMedia(char Type, decimal FirstLsn, decimal LastLsn, int Position, IReadOnlyList<string> Devices, IReadOnlyList<DeviceKind?> Kinds);

/// <summary>What the target server said before the plan is made: its identity, default folders, space, permission, the scratch name's use.</summary>
public sealed record DrillTargetFacts(
    ServerIdentity Identity, string? DefaultDataPath, string? DefaultLogPath, bool CanCreateDatabase, bool ScratchExists, bool SourceNameExists)
{
    /// <summary>The free space of a folder: the volume holding it, as sys.dm_os_volume_stats reports it.</summary>
    public Func<string, FreeSpace> FreeSpaceOf { get; init; } = _ => FreeSpace.CannotTell("not read");
}

/// <summary>
/// Builds the drill's plan from the chain <see cref="RestorePlanner"/> chose (no chain of its own), msdb's media of
/// each set, the full backup's file list and the target's facts, and says every reason it must not run.
/// </summary>
public static class RestoreDrillPlanner
{
    /// <summary>The permission RESTORE of a database that does not exist needs (the RESTORE page, Permissions).</summary>
    public const string CreateDatabase = "CREATE DATABASE (in master) or CREATE ANY DATABASE (dbcreator): RESTORE of a database that does not exist";

    public static RestoreDrillPlan Build(
        DrillRequest request, string targetServer, string sourceServer, ServerIdentity? source, RestorePlan? chain,
        IReadOnlyList<DrillMedia> media, (IReadOnlyList<BackupFileEntry>? Files, string? Unread) fileList, DrillTargetFacts target,
        RestoreEstimateReport? estimate, DateTime utcNow)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(target);
        var scratch = request.Scratch ?? RestoreDrillStatements.ScratchName(request.Database, utcNow);
        var refusals = new List<string>();
        var notes = new List<string>();
        if (string.Equals(scratch, request.Database, StringComparison.OrdinalIgnoreCase))
        {
            refusals.Add($"the scratch name [{scratch}] is the source database's own name: a drill never restores under it");
        }

        if (target.ScratchExists)
        {
            refusals.Add($"a database [{scratch}] already exists on {targetServer}: a drill restores only into a new database and never with REPLACE");
        }

        var same = source is null ? null : target.Identity.SameAs(source);
        if (same is not false && !request.AllowSourceServer)
        {
            refusals.Add(same is true
                ? $"{targetServer} is the source server ({target.Identity}): a drill there competes with the database's own work for disk and memory; give --allow-source-server to run it anyway"
                : $"cannot tell whether {targetServer} is the source server (a server did not report SERVERPROPERTY('MachineName')); give --allow-source-server to run it anyway");
        }
        else if (same is true)
        {
            notes.Add($"{targetServer} is the source server ({target.Identity}), allowed by --allow-source-server");
        }

        if (target.SourceNameExists && same is not false)
        {
            notes.Add($"[{request.Database}] itself is on {targetServer}: it is never touched (no REPLACE, every file moved to a new name)");
        }

        if (!target.CanCreateDatabase)
        {
            refusals.Add($"the login lacks CREATE DATABASE on {targetServer}, which RESTORE needs to create the scratch database: GRANT CREATE ANY DATABASE TO <login>; (or add it to dbcreator)");
        }

        var backups = new List<DrillBackup>();
        if (chain?.Full is null)
        {
            refusals.Add($"no full backup of [{request.Database}] in msdb of {sourceServer} in the span read: nothing to restore from");
        }
        else
        {
            var sets = new[] { chain.Full, chain.Differential }.OfType<PlannedBackup>().Concat(Logs(chain, request.StopAt, refusals)).ToList();
            foreach (var set in sets)
            {
                if (Media(set, media, refusals) is { } found)
                {
                    backups.Add(found);
                }
            }

            notes.AddRange(chain.Notes);
        }

        var dataFolder = request.DataFolder ?? target.DefaultDataPath;
        var logFolder = request.LogFolder ?? target.DefaultLogPath;
        if (dataFolder is null || logFolder is null)
        {
            refusals.Add("no folder for the scratch files: the server reports no default data or log path; give --data-folder and --log-folder");
        }

        IReadOnlyList<DrillMove> moves = [];
        if (fileList.Files is { Count: > 0 } files && dataFolder is not null && logFolder is not null)
        {
            moves = RestoreDrillStatements.Moves(files, scratch, dataFolder, logFolder);
        }
        else if (fileList.Unread is { } why)
        {
            refusals.Add($"the full backup's file list could not be read (RESTORE FILELISTONLY): {why}");
        }

        var space = new List<DrillSpace>();
        foreach (var folder in moves.GroupBy(m => m.IsLog ? logFolder! : dataFolder!, StringComparer.OrdinalIgnoreCase))
        {
            var needed = folder.Sum(m => m.SizeBytes);
            var free = target.FreeSpaceOf(folder.Key);
            var entry = new DrillSpace(folder.Key, needed, free.Bytes, free.Unknown);
            space.Add(entry);
            if (entry.Short)
            {
                refusals.Add($"{folder.Key}: the scratch files need {Figures.Bytes(needed)} and the volume has {Figures.Bytes(free.Bytes!.Value)} free (sys.dm_os_volume_stats)");
            }
        }

        if (space.GroupBy(s => s.AvailableBytes).Count() < space.Count)
        {
            notes.Add("the data and log folders may share a volume: each is checked alone against its free space");
        }

        var full = backups.FirstOrDefault(b => b.Set.Type == 'D');
        var steps = new List<DrillStep>();
        if (full is not null && moves.Count > 0)
        {
            steps.Add(new DrillStep(DrillPhases.RestoreFull, RestoreDrillStatements.RestoreFull(scratch, full, moves)));
            foreach (var backup in backups.Skip(1))
            {
                steps.Add(backup.Set.Type == 'I'
                    ? new DrillStep(DrillPhases.RestoreDifferential, RestoreDrillStatements.RestoreDifferential(scratch, backup))
                    : new DrillStep(DrillPhases.RestoreLog, RestoreDrillStatements.RestoreLog(scratch, backup, request.StopAt)));
            }

            steps.Add(new DrillStep(DrillPhases.Recovery, RestoreDrillStatements.Recover(scratch)));
            if (request.CheckDb)
            {
                steps.Add(new DrillStep(DrillPhases.CheckDb, RestoreDrillStatements.CheckDb(scratch)));
            }
        }

        var preflight = backups.SelectMany(b => new[]
        {
            new DrillStep(DrillPhases.Planning, RestoreDrillStatements.HeaderOnly(b)),
            new DrillStep(DrillPhases.Planning, RestoreDrillStatements.FileListOnly(b)),
            new DrillStep(DrillPhases.Planning, RestoreDrillStatements.VerifyOnly(b)),
        }).ToList();
        var permissions = new List<string> { $"{CreateDatabase}: {(target.CanCreateDatabase ? "held" : "missing")}" };
        if (request.CheckDb)
        {
            permissions.Add("DBCC CHECKDB: sysadmin or db_owner of the scratch database; not checked before, a refusal fails the CHECKDB phase");
        }

        permissions.Add("DROP DATABASE of the scratch: its owner, CONTROL on it or ALTER ANY DATABASE; not checked before, a refused DROP is named with what is left");
        permissions.Add("VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022) and VIEW ANY DEFINITION: the free space (sys.dm_os_volume_stats); without them the space cannot be told");
        return new RestoreDrillPlan
        {
            Database = request.Database,
            Scratch = scratch,
            TargetServer = targetServer,
            SourceServer = sourceServer,
            TargetIdentity = target.Identity,
            SourceIdentity = source,
            Backups = backups,
            Moves = moves,
            Preflight = preflight,
            Steps = steps,
            DropSql = RestoreDrillStatements.Drop(scratch),
            Space = space,
            Permissions = permissions,
            Estimate = estimate,
            StopAt = request.StopAt,
            CheckDb = request.CheckDb,
            Keep = request.Keep,
            Refusals = refusals,
            Notes = notes,
        };
    }

    /// <summary>The chain's log backups, up to the one that holds <paramref name="stopAt"/> when given.</summary>
    private static IEnumerable<PlannedBackup> Logs(RestorePlan chain, DateTime? stopAt, List<string> refusals)
    {
        if (stopAt is not { } at)
        {
            return chain.Logs;
        }

        var basis = chain.Differential ?? chain.Full!;
        if (at <= basis.Finish)
        {
            refusals.Add(string.Create(CultureInfo.InvariantCulture,
                $"--stopat {at:yyyy-MM-dd HH:mm:ss} is not after the {(chain.Differential is null ? "full" : "differential")} backup the chain starts from (finished {basis.Finish:yyyy-MM-dd HH:mm:ss}); choose a later moment"));
            return [];
        }

        var index = chain.Logs.ToList().FindIndex(l => l.Finish >= at);
        if (index < 0)
        {
            refusals.Add(string.Create(CultureInfo.InvariantCulture,
                $"--stopat {at:yyyy-MM-dd HH:mm:ss} is after the last log backup of the chain ({(chain.ReachesTo is { } to ? to.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture) : "none")})"));
            return [];
        }

        return chain.Logs.Take(index + 1);
    }

    private static DrillBackup? Media(PlannedBackup set, IReadOnlyList<DrillMedia> media, List<string> refusals)
    {
        var what = string.Create(CultureInfo.InvariantCulture, $"the {(set.Type switch { 'D' => "full", 'I' => "differential", _ => "log" })} backup of {set.Start:yyyy-MM-dd HH:mm:ss}");
        var found = media.FirstOrDefault(m => m.Type == set.Type && m.FirstLsn == set.FirstLsn && m.LastLsn == set.LastLsn);
        if (found is null || found.Devices.Count == 0)
        {
            refusals.Add($"msdb names no device for {what}: it cannot be restored from here");
            return null;
        }

        if (found.Kinds.Any(k => k is DeviceKind.Virtual or DeviceKind.Tape or DeviceKind.Logical))
        {
            refusals.Add($"{what} is on {string.Join(", ", found.Kinds.Distinct())} media (msdb device_type), which the drill does not read: only disk files and URLs");
            return null;
        }

        return new DrillBackup(set, found.Devices, found.Position);
    }
}

/// <summary>The phases a drill measures, one name each, in the order they run.</summary>
public static class DrillPhases
{
    /// <summary>The header reads before the first restore: HEADERONLY, FILELISTONLY and VERIFYONLY of each backup, the permission and space checks.</summary>
    public const string Planning = "planning";
    public const string RestoreFull = "restore full";
    public const string RestoreDifferential = "restore differential";
    public const string RestoreLog = "restore log";
    public const string Recovery = "recovery";
    public const string CheckDb = "checkdb";
    public const string Drop = "drop";
}
