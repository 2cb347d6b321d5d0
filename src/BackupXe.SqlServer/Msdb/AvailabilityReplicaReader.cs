using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Msdb;

/// <summary>What a replica said of its availability groups: each group database's role and backup preference, and notes.</summary>
public sealed record ReplicaRoles(IReadOnlyList<ReplicaRole> Roles, IReadOnlyList<string> Notes, bool Read);

/// <summary>
/// Reads, read-only, each availability group database's replica role and its group's backup preference on one server
/// (docs/fleet.md, "Backup preference"; docs/permissions.md). Gated: availability groups arrived with SQL Server 2012
/// (SERVERPROPERTY('IsHadrEnabled') is NULL before, as for any property a build does not know) and the views answer
/// only when HADR is enabled (1); the DMV needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022)
/// and the two catalog views VIEW ANY DEFINITION, without which they hide the groups' rows rather than refuse: both are
/// checked first, so a login without them gets one note rather than an error or an empty answer read as "no group".
/// </summary>
public sealed class AvailabilityReplicaReader(SqlConnectionFactory factory)
{
    /// <summary>Whether HADR is enabled, and whether the login holds the permissions the DMV and the catalog views need on this version.</summary>
    public const string FactsQuery = """
        SELECT CAST(SERVERPROPERTY('IsHadrEnabled') AS int) AS is_hadr_enabled,
               CASE WHEN CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 16
                    THEN HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER PERFORMANCE STATE')
                    ELSE HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE') END AS view_server_state,
               HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW ANY DEFINITION') AS view_any_definition;
        """;

    /// <summary>
    /// One row per database of an availability group on this replica (sys.databases.replica_id is the local replica's,
    /// NULL outside a group): its group database id, the group and its automated backup preference, this replica's
    /// backup priority, its role (the local row of the DMV), and whether it is the preferred backup replica.
    /// </summary>
    public const string RolesQuery = """
        SELECT d.name AS database_name,
               CAST(d.group_database_id AS nvarchar(36)) AS group_database_id,
               ag.name AS group_name,
               ag.automated_backup_preference_desc,
               ar.backup_priority,
               rs.role_desc,
               CAST(sys.fn_hadr_backup_is_preferred_replica(d.name) AS int) AS is_preferred_replica
        FROM sys.databases AS d
        JOIN sys.availability_replicas AS ar ON ar.replica_id = d.replica_id
        JOIN sys.availability_groups AS ag ON ag.group_id = ar.group_id
        LEFT JOIN sys.dm_hadr_availability_replica_states AS rs ON rs.replica_id = ar.replica_id AND rs.is_local = 1
        WHERE d.replica_id IS NOT NULL AND d.group_database_id IS NOT NULL
        ORDER BY d.name;
        """;

    /// <summary>The group databases' roles on this server, named <paramref name="instance"/> as the history names it, read at <paramref name="readAt"/> (UTC).</summary>
    public async Task<ReplicaRoles> ReadAsync(string instance, DateTime readAt, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken);
        int? enabled;
        int? permitted;
        int? definitions;
        try
        {
            await using var command = factory.Command(connection, FactsQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            if (!await reader.ReadAsync(cancellationToken))
            {
                return new ReplicaRoles([], [], Read: false);
            }

            enabled = reader.IsDBNull(0) ? null : reader.GetInt32(0);
            permitted = reader.IsDBNull(1) ? null : reader.GetInt32(1);
            definitions = reader.IsDBNull(2) ? null : reader.GetInt32(2);
        }
        catch (SqlException failure) when (failure.Class < 20)
        {
            return Refused(failure);
        }

        if (enabled != 1)
        {
            // Not enabled, or a build before availability groups: no group database here, nothing to say.
            return new ReplicaRoles([], [], Read: true);
        }

        if (permitted != 1)
        {
            return NotRead("sys.dm_hadr_availability_replica_states needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022)");
        }

        if (definitions != 1)
        {
            return NotRead("sys.availability_groups and sys.availability_replicas need VIEW ANY DEFINITION, without which they show no group");
        }

        var roles = new List<ReplicaRole>();
        try
        {
            await using var command = factory.Command(connection, RolesQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                if (reader.IsDBNull(0) || DatabaseIdentity.Parse(reader.IsDBNull(1) ? null : reader.GetString(1)) is not { } group)
                {
                    continue;
                }

                roles.Add(new ReplicaRole(
                    instance, reader.GetString(0), group, reader.IsDBNull(2) ? string.Empty : reader.GetString(2),
                    Text(reader, 5), Text(reader, 3),
                    // backup_priority is documented from 0 to 100; anything else is not a priority.
                    reader.IsDBNull(4) ? null : reader.GetInt32(4) is var priority and >= 0 and <= 100 ? priority : null,
                    // Microsoft's page says 1 or 0 without naming the type: cast to int by the query, so either reads.
                    reader.IsDBNull(6) ? null : reader.GetInt32(6) != 0,
                    readAt));
            }
        }
        catch (SqlException failure) when (failure.Class < 20)
        {
            return Refused(failure);
        }

        return new ReplicaRoles(roles, [], Read: true);
    }

    // A permission the login lacks, named before anything is asked.
    private static ReplicaRoles NotRead(string why) => new([], [$"availability replica roles not read: {why}; `fleet` cannot say whether a backup was taken on the preferred replica (docs/permissions.md)"], Read: false);

    // A statement the server refused: its error, in one line.
    private static ReplicaRoles Refused(SqlException failure) => new([], [$"availability replica roles not read (error {failure.Number}: {FirstLine(failure.Message)})"], Read: false);

    private static string? Text(SqlDataReader reader, int ordinal) => reader.IsDBNull(ordinal) ? null : reader.GetString(ordinal).Trim();

    private static string FirstLine(string text) => text.Split('\n', 2)[0].Trim();
}
