using BackupXe.Core.Restores;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;

namespace BackupXe.History;

/// <summary>The one path from msdb's restorehistory to a restore store, for the daemon's import and `history import --server`.</summary>
public static class MsdbRestoreImport
{
    /// <summary>
    /// Reads <paramref name="server"/>'s full database restores since <paramref name="since"/> (server local time,
    /// <see cref="MsdbBackupChain.RestoresQuery"/>), of <paramref name="databases"/> (all when empty), and keeps them as
    /// <paramref name="instance"/>'s. A login that cannot read restorehistory gets a note and nothing is kept: the import
    /// it follows stands.
    /// </summary>
    /// <exception cref="HistoryStoreException">The restores were read but the store cannot be written.</exception>
    public static async Task<MsdbRestoresImport> RunAsync(
        IMsdbRestoreStore store, string instance, SqlConnectionFactory server, DateTime since, IReadOnlyCollection<string> databases,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(store);
        IReadOnlyList<DatabaseRestore> restores;
        string? unread;
        try
        {
            await using var connection = await server.OpenAsync(cancellationToken);
            (restores, unread) = await new MsdbBackupChain(server).ReadRestoresAsync(connection, since, databases, cancellationToken);
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            (restores, unread) = ([], $"{exception.GetType().Name}: {ConnectionStringRedactor.RedactMessage(exception.Message)}");
        }

        if (unread is not null)
        {
            return new MsdbRestoresImport(0, $"msdb.dbo.restorehistory not read ({unread}): restores no capture saw are not known; it needs SELECT on it and on backupset (db_datareader in msdb)");
        }

        await store.SaveAsync(instance, restores, cancellationToken);
        return new MsdbRestoresImport(restores.Count, null);
    }
}
