using BackupXe.Tests.Support;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.History;

/// <summary>
/// The central store's script (sessions/backupxe-history-sqlserver.sql), parsed as T-SQL: a DBA runs it again at each
/// release, so every object it makes is made only when missing, and migration 6 keeps what the SQLite history keeps
/// for msdb imports.
/// </summary>
public sealed class SqlServerHistoryScriptTests
{
    private static TSqlScript Parsed()
    {
        var text = File.ReadAllText(Path.Combine(Repository.Root, "sessions", "backupxe-history-sqlserver.sql"));
        var fragment = new TSql150Parser(true).Parse(new StringReader(text), out var errors);
        Assert.True(errors.Count == 0, string.Join("; ", errors.Select(e => e.Message)));
        return (TSqlScript)fragment;
    }

    [Fact]
    public void Every_table_index_and_column_the_script_makes_is_made_only_under_an_if_so_running_it_again_changes_nothing()
    {
        var script = Parsed();
        var unguarded = new List<string>();
        foreach (var statement in script.Batches.SelectMany(b => b.Statements))
        {
            if (statement is CreateTableStatement or CreateIndexStatement or AlterTableAddTableElementStatement)
            {
                unguarded.Add(statement.GetType().Name + " at line " + statement.StartLine);
            }
        }

        Assert.Empty(unguarded);
    }

    [Fact]
    public void Migration_6_keeps_replica_roles_and_msdb_restores_with_the_keys_of_the_sqlite_history_and_sets_version_6()
    {
        var tables = new Dictionary<string, CreateTableStatement>(StringComparer.Ordinal);
        var visitor = new CreateTables(tables);
        Parsed().Accept(visitor);

        var roles = tables["replica_roles"];
        Assert.Equal(
            ["instance_name", "database_name", "group_database_id", "group_name", "role", "backup_preference", "backup_priority", "is_preferred", "read_at"],
            roles.Definition.ColumnDefinitions.Select(c => c.ColumnIdentifier.Value));
        Assert.Equal(["instance_name", "group_database_id"], PrimaryKey(roles));

        var restores = tables["msdb_restores"];
        Assert.Equal(
            ["instance_name", "database_name", "restored_at", "is_replace", "source_database", "source_type", "source_copy_only", "source_first_lsn",
             "source_last_lsn", "source_database_backup_lsn", "source_checkpoint_lsn", "source_recovery_model", "source_start", "source_finish",
             "source_backup_size", "source_compressed_size", "imported_at"],
            restores.Definition.ColumnDefinitions.Select(c => c.ColumnIdentifier.Value));
        Assert.Equal(["instance_name", "database_name", "restored_at"], PrimaryKey(restores));

        var text = File.ReadAllText(Path.Combine(Repository.Root, "sessions", "backupxe-history-sqlserver.sql"));
        Assert.Contains("INSERT INTO dbo.backupxe_schema (version) VALUES (6);", text, StringComparison.Ordinal);
        Assert.Contains("UPDATE dbo.backupxe_schema SET version = 6 WHERE version < 6;", text, StringComparison.Ordinal);
    }

    private static IEnumerable<string> PrimaryKey(CreateTableStatement table)
        => table.Definition.TableConstraints.OfType<UniqueConstraintDefinition>().Single(c => c.IsPrimaryKey)
            .Columns.Select(c => c.Column.MultiPartIdentifier.Identifiers[^1].Value);

    private sealed class CreateTables(Dictionary<string, CreateTableStatement> tables) : TSqlFragmentVisitor
    {
        public override void ExplicitVisit(CreateTableStatement node)
        {
            tables[node.SchemaObjectName.BaseIdentifier.Value] = node;
            base.ExplicitVisit(node);
        }
    }
}
