using System.Globalization;
using BackupXe.Core.Fleet;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// The availability group replica roles in the SQLite history's <c>replica_roles</c> table (migration 6,
/// <see cref="SqliteHistorySchema"/>): per instance and group database the newest role, backup preference, backup
/// priority and preferred flag the replica gave. Each save replaces the instance's rows: a role is a state, not a
/// history, and a database that left the group leaves no stale role. Reading opens the file read-only and reads a file
/// from before migration 6 as one without roles.
/// </summary>
public sealed class SqliteReplicaRoles(string path, TimeProvider time) : IReplicaRoleStore
{
    private readonly string _path = Path.GetFullPath(path);

    /// <summary>Reads <paramref name="server"/>'s roles and keeps them as <paramref name="instance"/>'s (<see cref="ReplicaRoleImport"/>).</summary>
    /// <exception cref="HistoryStoreException">The roles were read but the file cannot be written.</exception>
    public Task<ReplicaRoles> ImportAsync(string instance, SqlConnectionFactory server, CancellationToken cancellationToken)
        => ReplicaRoleImport.RunAsync(this, instance, server, time, cancellationToken);

    /// <summary>Replaces <paramref name="instance"/>'s roles with <paramref name="roles"/>, in one transaction.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be created, migrated or written.</exception>
    public async Task SaveAsync(string instance, IReadOnlyList<ReplicaRole> roles, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(roles);
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForWriteAsync(_path, time, cancellationToken);
            await using var transaction = (SqliteTransaction)await connection.BeginTransactionAsync(cancellationToken);
            await using (var delete = connection.CreateCommand())
            {
                delete.Transaction = transaction;
                delete.CommandText = "DELETE FROM replica_roles WHERE instance_name = $instance;";
                delete.Parameters.AddWithValue("$instance", instance);
                await delete.ExecuteNonQueryAsync(cancellationToken);
            }

            foreach (var role in roles)
            {
                await using var insert = connection.CreateCommand();
                insert.Transaction = transaction;
                insert.CommandText = """
                    INSERT OR REPLACE INTO replica_roles (instance_name, database_name, group_database_id, group_name, role, backup_preference, backup_priority, is_preferred, read_at)
                    VALUES ($instance, $database, $group, $groupName, $role, $preference, $priority, $preferred, $read);
                    """;
                insert.Parameters.AddWithValue("$instance", instance);
                insert.Parameters.AddWithValue("$database", role.Database);
                insert.Parameters.AddWithValue("$group", role.GroupDatabaseId.ToString("D"));
                insert.Parameters.AddWithValue("$groupName", role.GroupName);
                insert.Parameters.AddWithValue("$role", (object?)role.Role ?? DBNull.Value);
                insert.Parameters.AddWithValue("$preference", (object?)role.BackupPreference ?? DBNull.Value);
                insert.Parameters.AddWithValue("$priority", (object?)role.BackupPriority ?? DBNull.Value);
                insert.Parameters.AddWithValue("$preferred", role.Preferred is { } preferred ? (preferred ? 1 : 0) : DBNull.Value);
                insert.Parameters.AddWithValue("$read", SqliteHistoryTables.Format(role.ReadAt));
                await insert.ExecuteNonQueryAsync(cancellationToken);
            }

            await transaction.CommitAsync(cancellationToken);
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot store the replica roles: {exception.Message}", exception);
        }
    }

    /// <summary>Every instance's roles; none in a file from before migration 6. A row that does not read back (edited) is skipped.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be read.</exception>
    public async Task<IReadOnlyList<ReplicaRole>> ReadAsync(CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForReadAsync(_path, "replica_roles", cancellationToken);
            if (connection is null)
            {
                return [];
            }

            await using var command = connection.CreateCommand();
            command.CommandText = """
                SELECT instance_name, database_name, group_database_id, group_name, role, backup_preference, backup_priority, is_preferred, read_at
                FROM replica_roles ORDER BY instance_name, database_name;
                """;
            var roles = new List<ReplicaRole>();
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                if (!Guid.TryParse(reader.GetString(2), out var group)
                    || !DateTime.TryParseExact(reader.GetString(8), "yyyy-MM-dd'T'HH:mm:ss.fffffff", CultureInfo.InvariantCulture, DateTimeStyles.None, out var read))
                {
                    continue;
                }

                roles.Add(new ReplicaRole(
                    reader.GetString(0), reader.GetString(1), group, reader.GetString(3),
                    reader.IsDBNull(4) ? null : reader.GetString(4), reader.IsDBNull(5) ? null : reader.GetString(5),
                    reader.IsDBNull(6) ? null : (int)reader.GetInt64(6), reader.IsDBNull(7) ? null : reader.GetInt64(7) == 1, read));
            }

            return roles;
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot be read for replica roles: {exception.Message}", exception);
        }
    }
}
