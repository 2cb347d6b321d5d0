using System.Data;
using BackupXe.Core.Fleet;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// The availability group replica roles in the central store's dbo.replica_roles (migration 6 of
/// sessions/backupxe-history-sqlserver.sql), as <see cref="SqliteReplicaRoles"/> keeps them in the SQLite history: per
/// instance and group database the newest role read. A save upserts each role of one read, then drops the instance's
/// roles of earlier reads, so a database that left the group leaves no stale role.
/// </summary>
public sealed class SqlServerReplicaRoles(SqlConnectionFactory connections, TransientRetry? retry = null) : IReplicaRoleStore
{
    /// <summary>One role of a read: updated on its key, inserted under UPDLOCK, HOLDLOCK when absent.</summary>
    public const string UpsertRole = """
        SET NOCOUNT ON;
        UPDATE dbo.replica_roles WITH (UPDLOCK, HOLDLOCK)
        SET database_name = @database, group_name = @groupName, role = @role, backup_preference = @preference,
            backup_priority = @priority, is_preferred = @preferred, read_at = @read
        WHERE instance_name = @instance AND group_database_id = @group;
        IF @@ROWCOUNT = 0
            INSERT INTO dbo.replica_roles (instance_name, database_name, group_database_id, group_name, role, backup_preference, backup_priority, is_preferred, read_at)
            VALUES (@instance, @database, @group, @groupName, @role, @preference, @priority, @preferred, @read);
        """;

    /// <summary>The instance's roles of earlier reads: databases no longer in a group there.</summary>
    public const string DeleteOlderRoles = "DELETE FROM dbo.replica_roles WHERE instance_name = @instance AND read_at < @read;";

    /// <summary>Every instance's roles.</summary>
    public const string RolesQuery = """
        SELECT instance_name, database_name, group_database_id, group_name, role, backup_preference, backup_priority, is_preferred, read_at
        FROM dbo.replica_roles ORDER BY instance_name, database_name;
        """;

    private readonly TransientRetry _retry = retry ?? new TransientRetry();

    public async Task SaveAsync(string instance, IReadOnlyList<ReplicaRole> roles, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(roles);
        // Every role of one read has its time; with none read, any time clears the instance's roles.
        var read = roles.Count > 0 ? roles[0].ReadAt : DateTime.MaxValue;
        await _retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            foreach (var role in roles)
            {
                await using var upsert = connections.Command(connection, UpsertRole);
                var p = upsert.Parameters;
                p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
                p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = role.Database });
                p.Add(new SqlParameter("@group", SqlDbType.UniqueIdentifier) { Value = role.GroupDatabaseId });
                p.Add(new SqlParameter("@groupName", SqlDbType.NVarChar, 128) { Value = role.GroupName });
                p.Add(new SqlParameter("@role", SqlDbType.NVarChar, 60) { Value = (object?)role.Role ?? DBNull.Value });
                p.Add(new SqlParameter("@preference", SqlDbType.NVarChar, 60) { Value = (object?)role.BackupPreference ?? DBNull.Value });
                p.Add(new SqlParameter("@priority", SqlDbType.Int) { Value = (object?)role.BackupPriority ?? DBNull.Value });
                p.Add(new SqlParameter("@preferred", SqlDbType.Bit) { Value = (object?)role.Preferred ?? DBNull.Value });
                p.Add(new SqlParameter("@read", SqlDbType.DateTime2) { Value = role.ReadAt });
                await upsert.ExecuteNonQueryAsync(token);
            }

            await using var delete = connections.Command(connection, DeleteOlderRoles);
            delete.Parameters.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
            delete.Parameters.Add(new SqlParameter("@read", SqlDbType.DateTime2) { Value = read });
            await delete.ExecuteNonQueryAsync(token);
        }, cancellationToken);
    }

    public async Task<IReadOnlyList<ReplicaRole>> ReadAsync(CancellationToken cancellationToken)
    {
        return await _retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            await using var command = connections.Command(connection, RolesQuery);
            var roles = new List<ReplicaRole>();
            await using var reader = await command.ExecuteReaderAsync(token);
            while (await reader.ReadAsync(token))
            {
                roles.Add(new ReplicaRole(
                    reader.GetString(0), reader.GetString(1), reader.GetGuid(2), reader.GetString(3),
                    reader.IsDBNull(4) ? null : reader.GetString(4), reader.IsDBNull(5) ? null : reader.GetString(5),
                    reader.IsDBNull(6) ? null : reader.GetInt32(6), reader.IsDBNull(7) ? null : reader.GetBoolean(7), reader.GetDateTime(8)));
            }

            return (IReadOnlyList<ReplicaRole>)roles;
        }, cancellationToken);
    }

}
