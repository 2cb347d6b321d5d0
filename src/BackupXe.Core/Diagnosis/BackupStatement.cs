using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// A BACKUP or RESTORE statement for the operation being diagnosed: same kind, scope (DATABASE / LOG),
/// database and devices, with the options a recommendation changes.
/// </summary>
internal sealed class BackupStatement
{
    private readonly List<string> _options = [];
    private readonly List<string> _comments = [];
    private readonly OperationKind _kind;
    private readonly OperationScope? _scope;
    private readonly string? _database;
    private IReadOnlyList<string> _devices;

    private BackupStatement(OperationKind kind, OperationScope? scope, string? database, IReadOnlyList<string> devices)
    {
        _kind = kind;
        _scope = scope;
        _database = database;
        _devices = devices;
    }

    /// <summary>The operation itself, keeping the options it is known to have used.</summary>
    public static BackupStatement Like(OperationReport operation)
    {
        var statement = new BackupStatement(
            operation.Kind,
            operation.Scope,
            operation.Database,
            operation.Devices.Count > 0 ? operation.Devices.Select(d => d.Path).ToList()
                : operation.Requested is { Devices.Count: > 0 } requested ? [.. requested.Devices]
                : [Tsql.UnknownDevice]);
        if (operation.Kind == OperationKind.Backup)
        {
            if (operation.Scope == OperationScope.Differential)
            {
                statement.With("DIFFERENTIAL");
            }

            // What the server reported wins; the job's own command fills in what it did not.
            if ((operation.Options?.Compression ?? operation.Requested?.Compression) is { } compression)
            {
                statement.With(compression ? "COMPRESSION" : "NO_COMPRESSION");
            }

            if ((operation.Options?.Checksum ?? operation.Requested?.Checksum) is true)
            {
                statement.With("CHECKSUM");
            }

            if (operation.Scope == OperationScope.File)
            {
                statement.Comment("add the FILE = / FILEGROUP = clause of the original backup");
            }
        }
        else
        {
            statement.Comment("keep the MOVE / NORECOVERY / REPLACE options of the original restore");
        }

        return statement;
    }

    /// <summary>A COPY_ONLY backup of the same database to NUL: reads everything, writes nothing (docs/backup-internals.md#data-path-readers-buffers-writers).</summary>
    public static BackupStatement ToNul(OperationReport operation, bool? compression)
    {
        var scope = operation.Scope == OperationScope.Log ? OperationScope.Log : OperationScope.Database;
        var statement = new BackupStatement(OperationKind.Backup, scope, operation.Database, ["NUL"]).With("COPY_ONLY");
        if (compression is { } on)
        {
            statement.With(on ? "COMPRESSION" : "NO_COMPRESSION");
        }

        return statement;
    }

    public BackupStatement To(IReadOnlyList<string> devices)
    {
        _devices = devices;
        return this;
    }

    public BackupStatement With(string option)
    {
        _options.Add(option);
        return this;
    }

    public BackupStatement Comment(string comment)
    {
        _comments.Add(comment);
        return this;
    }

    public override string ToString()
    {
        var sql = new StringBuilder();
        foreach (var comment in _comments)
        {
            sql.Append("-- ").Append(comment).Append('\n');
        }

        var verb = _kind == OperationKind.Restore ? "RESTORE" : "BACKUP";
        var what = _scope == OperationScope.Log ? "LOG" : "DATABASE";
        sql.Append(verb).Append(' ').Append(what).Append(' ').Append(Tsql.Name(_database)).Append('\n');
        sql.Append(_kind == OperationKind.Restore ? "FROM " : "TO ").AppendJoin(",\n   ", _devices.Select(Tsql.Device)).Append('\n');
        sql.Append("WITH ").AppendJoin(", ", _options.Append("STATS = 10")).Append(';');
        return sql.ToString();
    }
}
