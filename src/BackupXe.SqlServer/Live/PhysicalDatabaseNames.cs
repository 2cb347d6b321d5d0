using System.Data;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// On Azure SQL Managed Instance a backup event's database_name may be the database's physical name, a GUID
/// (Microsoft's Managed Instance backup-monitoring page joins it to sys.databases.physical_database_name): such a
/// name is looked up once and the event carries the logical name. A name that is not a GUID is never looked up, so a
/// SQL Server sends nothing more; a GUID no database has as its physical name (or a build without the column) stays
/// as it is.
/// </summary>
internal sealed class PhysicalDatabaseNames(SqlConnectionFactory connections)
{
    public const string Query = """
        SELECT TOP (1) name
        FROM sys.databases
        WHERE physical_database_name = @physical_name;
        """;

    private readonly Dictionary<string, string> _known = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The event with its database under its logical name, or the event itself.</summary>
    public async ValueTask<TraceEvent> LogicalAsync(TraceEvent traceEvent, CancellationToken cancellationToken)
    {
        if (traceEvent is not ProgressTraceEvent { DatabaseName: { } name } progress || !Guid.TryParse(name, out _))
        {
            return traceEvent;
        }

        if (!_known.TryGetValue(name, out var logical))
        {
            logical = await LookUpAsync(name, cancellationToken).ConfigureAwait(false) ?? name;
            _known[name] = logical;
        }

        return logical == name ? traceEvent : progress with { DatabaseName = logical };
    }

    private async Task<string?> LookUpAsync(string physical, CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await connections.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = connections.Command(connection, Query);
            command.Parameters.Add("@physical_name", SqlDbType.NVarChar, 128).Value = physical;
            return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) as string;
        }
        catch (Microsoft.Data.SqlClient.SqlException)
        {
            // A build without the column (error 207), or no permission: the event keeps the name it came with.
            return null;
        }
    }
}
