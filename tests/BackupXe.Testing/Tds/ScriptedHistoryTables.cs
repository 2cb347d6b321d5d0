namespace BackupXe.Testing.Tds;

/// <summary>
/// The central store's dbo.operations, dbo.replica_roles and dbo.msdb_restores (sessions/backupxe-history-sqlserver.sql,
/// migrations 1, 4 and 6) as the import statements of SqlServerImportedHistory, SqlServerReplicaRoles and
/// SqlServerMsdbRestores would change them on a server: an insert-if-absent adds a row only when its key is new, the
/// merge's UPDATE keeps a captured row's report, the reads filter and order as their WHERE and ORDER BY say. Names compare
/// without case, as under the default case-insensitive collation. Each statement is applied under one lock. varchar and
/// char columns are served as nvarchar (the double has no varchar type), which the driver reads as the same string. It
/// emulates those statements; it is no SQL engine.
/// </summary>
public sealed class ScriptedHistoryTables
{
    private static readonly StringComparer Names = StringComparer.OrdinalIgnoreCase;

    private readonly List<Operation> _operations = [];
    private readonly List<object?[]> _roles = [];
    private readonly List<object?[]> _restores = [];

    /// <summary>How many rows dbo.operations holds.</summary>
    public int OperationCount
    {
        get
        {
            lock (_operations)
            {
                return _operations.Count;
            }
        }
    }

    /// <summary><paramref name="script"/> answering the import statements from these tables.</summary>
    public TdsScript Serve(TdsScript script) => script
        .On("COL_LENGTH(N'dbo.operations', N'group_database_id')", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("ready")).Row(1)))
        .On("SELECT id, report_json, history_json FROM dbo.operations", Locked(Candidates))
        .On("@report, @sources, @json", Locked(InsertOperation))
        .On("UPDATE dbo.operations SET history_json", Locked(Merge))
        .On("SELECT instance_name, report_json, history_json FROM dbo.operations", Locked(ReadOperations))
        .On("status = 'completed' AND throughput_mbps IS NOT NULL", Locked(RecentCompleted))
        .On("(@since IS NULL OR start_time >= @since)", Locked(Query))
        // No drill is stored here: dbo.restore_drills is there (migration 5) and empty.
        .On("SELECT TOP (1) drill_json", TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("drill_json", null))))
        // No tune is stored here: dbo.tune_runs is there (migration 2) and empty.
        .On("SELECT TOP (1) tune_json FROM dbo.tune_runs", TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("tune_json", null))))
        .On("UPDATE dbo.replica_roles", Locked(UpsertRole))
        .On("DELETE FROM dbo.replica_roles", Locked(DeleteOlderRoles))
        .On("FROM dbo.replica_roles ORDER BY", Locked(ReadRoles))
        .On("INSERT INTO dbo.msdb_restores", Locked(InsertRestore))
        .On("FROM dbo.msdb_restores ORDER BY", Locked(ReadRestores));

    private Func<TdsRequest, TdsResponse> Locked(Func<IReadOnlyDictionary<string, object?>, TdsResponse> answer)
        => request =>
        {
            lock (_operations)
            {
                return answer(request.Parameters);
            }
        };

    private TdsResponse Candidates(IReadOnlyDictionary<string, object?> p)
    {
        var set = new TdsResultSet(TdsColumn.BigInt("id"), TdsColumn.NVarChar("report_json", null), TdsColumn.NVarChar("history_json", null));
        foreach (var row in _operations.Where(r => Names.Equals(r.Instance, (string)p["@instance"]!) && Names.Equals(r.Database, (string?)p["@database"])
            && r.Kind == (string)p["@kind"]! && r.Start >= (DateTime)p["@from"]! && r.Start <= (DateTime)p["@to"]!))
        {
            set.Row(row.Id, row.Report, row.History);
        }

        return TdsResponse.Of(set);
    }

    private TdsResponse InsertOperation(IReadOnlyDictionary<string, object?> p)
    {
        var instance = (string)p["@instance"]!;
        var database = (string?)p["@database"] ?? string.Empty;
        var kind = (string)p["@kind"]!;
        var start = (DateTime)p["@start"]!;
        var exists = _operations.Any(r => Names.Equals(r.Instance, instance) && Names.Equals(r.Database ?? string.Empty, database) && r.Kind == kind && r.Start == start);
        if (!exists)
        {
            _operations.Add(new Operation(
                _operations.Count + 1, instance, (string?)p["@database"], kind, (string?)p["@scope"], start, (string)p["@status"]!, (double?)p["@throughput"],
                (string)p["@report"]!, (string)p["@json"]!));
        }

        return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(exists ? 0 : 1));
    }

    private TdsResponse Merge(IReadOnlyDictionary<string, object?> p)
    {
        var index = _operations.FindIndex(r => r.Id == (long)p["@id"]!);
        if (index >= 0)
        {
            var row = _operations[index];
            // A captured row (no history_json yet) keeps its report, as the statement's CASE says.
            _operations[index] = row with
            {
                History = (string)p["@json"]!, Report = row.History is null ? row.Report : (string)p["@report"]!,
                Status = (string)p["@status"]!, Throughput = (double?)p["@throughput"] ?? row.Throughput,
            };
        }

        return TdsResponse.Empty;
    }

    private TdsResponse ReadOperations(IReadOnlyDictionary<string, object?> p)
    {
        var instance = (string?)p["@instance"];
        var database = (string?)p["@database"];
        var set = new TdsResultSet(TdsColumn.NVarChar("instance_name", 128), TdsColumn.NVarChar("report_json", null), TdsColumn.NVarChar("history_json", null));
        foreach (var row in _operations.Where(r => (instance is null || Names.Equals(r.Instance, instance)) && (database is null || Names.Equals(r.Database, database)))
            .OrderBy(r => r.Start).ThenBy(r => r.Id))
        {
            set.Row(row.Instance, row.Report, row.History);
        }

        return TdsResponse.Of(set);
    }

    /// <summary>SqlServerHistoryStore's baseline read: a series' completed runs with a rate before a time, newest first.</summary>
    private TdsResponse RecentCompleted(IReadOnlyDictionary<string, object?> p)
    {
        var set = new TdsResultSet(TdsColumn.NVarChar("instance_name", 128), TdsColumn.NVarChar("report_json", null));
        var scope = (string?)p["@scope"];
        foreach (var row in _operations.Where(r => Names.Equals(r.Instance, (string)p["@instance"]!)
                && Names.Equals(r.Database ?? string.Empty, (string?)p["@database"] ?? string.Empty) && r.Kind == (string)p["@kind"]!
                && r.Scope == scope && r.Status == "completed" && r.Throughput is not null && r.Start < (DateTime)p["@before"]!)
            .OrderByDescending(r => r.Start).Take((int)p["@count"]!))
        {
            set.Row(row.Instance, row.Report);
        }

        return TdsResponse.Of(set);
    }

    /// <summary>SqlServerHistoryStore's query: the rows of an instance, database, kind and time range (each when given), newest first.</summary>
    private TdsResponse Query(IReadOnlyDictionary<string, object?> p)
    {
        var (instance, database, kind) = ((string?)p["@instance"], (string?)p["@database"], (string?)p["@kind"]);
        var (since, until) = ((DateTime?)p["@since"], (DateTime?)p["@until"]);
        var set = new TdsResultSet(TdsColumn.NVarChar("instance_name", 128), TdsColumn.NVarChar("report_json", null));
        foreach (var row in _operations.Where(r => (instance is null || Names.Equals(r.Instance, instance)) && (database is null || Names.Equals(r.Database, database))
                && (kind is null || r.Kind == kind) && (since is null || r.Start >= since) && (until is null || r.Start <= until))
            .OrderByDescending(r => r.Start).ThenByDescending(r => r.Id).Take((int)p["@count"]!))
        {
            set.Row(row.Instance, row.Report);
        }

        return TdsResponse.Of(set);
    }

    private TdsResponse UpsertRole(IReadOnlyDictionary<string, object?> p)
    {
        object?[] row = [p["@instance"], p["@database"], p["@group"], p["@groupName"], p["@role"], p["@preference"], p["@priority"], p["@preferred"], p["@read"]];
        var index = _roles.FindIndex(r => Names.Equals((string)r[0]!, (string)row[0]!) && (Guid)r[2]! == (Guid)row[2]!);
        if (index >= 0)
        {
            _roles[index] = row;
        }
        else
        {
            _roles.Add(row);
        }

        return TdsResponse.Empty;
    }

    private TdsResponse DeleteOlderRoles(IReadOnlyDictionary<string, object?> p)
    {
        _roles.RemoveAll(r => Names.Equals((string)r[0]!, (string)p["@instance"]!) && (DateTime)r[8]! < (DateTime)p["@read"]!);
        return TdsResponse.Empty;
    }

    private TdsResponse ReadRoles(IReadOnlyDictionary<string, object?> p)
    {
        var set = new TdsResultSet(
            TdsColumn.NVarChar("instance_name", 128), TdsColumn.NVarChar("database_name", 128), TdsColumn.UniqueIdentifier("group_database_id"),
            TdsColumn.NVarChar("group_name", 128), TdsColumn.NVarChar("role", 60), TdsColumn.NVarChar("backup_preference", 60), TdsColumn.Int("backup_priority"),
            TdsColumn.Bit("is_preferred"), TdsColumn.DateTime2("read_at"));
        foreach (var row in _roles.OrderBy(r => (string)r[0]!, Names).ThenBy(r => (string)r[1]!, Names))
        {
            set.Row(row);
        }

        return TdsResponse.Of(set);
    }

    private TdsResponse InsertRestore(IReadOnlyDictionary<string, object?> p)
    {
        if (!_restores.Any(r => Names.Equals((string)r[0]!, (string)p["@instance"]!) && Names.Equals((string)r[1]!, (string)p["@database"]!) && (DateTime)r[2]! == (DateTime)p["@restored"]!))
        {
            _restores.Add([
                p["@instance"], p["@database"], p["@restored"], p["@replace"], p["@sourceDatabase"], p["@type"], p["@copyOnly"], p["@first"], p["@last"],
                p["@base"], p["@checkpoint"], p["@model"], p["@start"], p["@finish"], p["@size"], p["@compressed"]]);
        }

        return TdsResponse.Empty;
    }

    private TdsResponse ReadRestores(IReadOnlyDictionary<string, object?> p)
    {
        var set = new TdsResultSet(
            TdsColumn.NVarChar("instance_name", 128), TdsColumn.NVarChar("database_name", 128), TdsColumn.DateTime2("restored_at"), TdsColumn.Bit("is_replace"),
            TdsColumn.NVarChar("source_database", 128), TdsColumn.NVarChar("source_type", 1), TdsColumn.Bit("source_copy_only"),
            TdsColumn.NVarChar("source_first_lsn", 25), TdsColumn.NVarChar("source_last_lsn", 25), TdsColumn.NVarChar("source_database_backup_lsn", 25),
            TdsColumn.NVarChar("source_checkpoint_lsn", 25), TdsColumn.NVarChar("source_recovery_model", 60), TdsColumn.DateTime2("source_start"),
            TdsColumn.DateTime2("source_finish"), TdsColumn.BigInt("source_backup_size"), TdsColumn.BigInt("source_compressed_size"));
        foreach (var row in _restores.OrderBy(r => (string)r[0]!, Names).ThenBy(r => (string)r[1]!, Names).ThenBy(r => (DateTime)r[2]!))
        {
            set.Row(row);
        }

        return TdsResponse.Of(set);
    }

    private sealed record Operation(
        long Id, string Instance, string? Database, string Kind, string? Scope, DateTime Start, string Status, double? Throughput, string Report, string? History);
}
