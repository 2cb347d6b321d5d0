using System.Globalization;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// What the stores of one table of the SQLite history (tune runs, restore drills) share: a write creates and migrates
/// the file as an import does, then opens it read-write; a read opens it read-only, never migrates it, and finds no
/// table in a file from before its migration; times are stored as invariant text that sorts as it reads.
/// </summary>
internal static class SqliteHistoryTables
{
    private const string TimeFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff";

    /// <summary>The file created or migrated (<see cref="SqliteImportedHistory.InitializeAsync"/>), then open for writing.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be created or migrated.</exception>
    /// <exception cref="SqliteException">The file cannot be opened.</exception>
    public static async Task<SqliteConnection> OpenForWriteAsync(string path, TimeProvider time, CancellationToken cancellationToken)
    {
        await new SqliteImportedHistory(path, time).InitializeAsync(cancellationToken);
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Mode = SqliteOpenMode.ReadWrite, Pooling = false }.ToString());
        try
        {
            await connection.OpenAsync(cancellationToken);
            return connection;
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }
    }

    /// <summary>The file open read-only when it has <paramref name="table"/>; null (and closed) when it has not.</summary>
    /// <exception cref="SqliteException">The file cannot be read.</exception>
    public static async Task<SqliteConnection?> OpenForReadAsync(string path, string table, CancellationToken cancellationToken)
    {
        var connection = await ReadOnlyHistoryFile.OpenAsync(path, cancellationToken);
        try
        {
            if (await SqliteHistorySchema.HasTableAsync(connection, table, cancellationToken))
            {
                return connection;
            }
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }

        await connection.DisposeAsync();
        return null;
    }

    public static string Format(DateTime at) => at.ToString(TimeFormat, CultureInfo.InvariantCulture);
}
