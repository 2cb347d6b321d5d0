using BackupXe.Core.Fleet;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;

namespace BackupXe.History;

/// <summary>The one path from a replica to a role store, for the daemon's import and `history import --server`.</summary>
public static class ReplicaRoleImport
{
    /// <summary>
    /// Reads <paramref name="server"/>'s roles (<see cref="AvailabilityReplicaReader"/>, its permission checks first) and
    /// keeps them as <paramref name="instance"/>'s when they could be read; what could not be read is a note, never an
    /// error, so the import it follows stands.
    /// </summary>
    /// <exception cref="HistoryStoreException">The roles were read but the store cannot be written.</exception>
    public static async Task<ReplicaRoles> RunAsync(
        IReplicaRoleStore store, string instance, SqlConnectionFactory server, TimeProvider time, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(store);
        ReplicaRoles read;
        try
        {
            read = await new AvailabilityReplicaReader(server).ReadAsync(instance, time.GetUtcNow().UtcDateTime, cancellationToken);
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            read = new ReplicaRoles([], [$"availability replica roles not read ({exception.GetType().Name}: {ConnectionStringRedactor.RedactMessage(exception.Message)})"], Read: false);
        }

        if (read.Read)
        {
            await store.SaveAsync(instance, read.Roles, cancellationToken);
        }

        return read;
    }
}
