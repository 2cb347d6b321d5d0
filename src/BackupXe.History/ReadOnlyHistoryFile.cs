using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// Opens a history file for reading by someone who may only read it: the daemon's file, read by a DBA. A history
/// is in WAL mode, and SQLite reading such a file wants to create its shared-memory file beside it; in a folder the
/// reader cannot write, that fails with "attempt to write a readonly database" although nothing is written. When
/// no write-ahead log holds anything (no writer has changes pending), the file is opened as immutable,
/// which needs no shared memory (sqlite.org/uri.html, "immutable"). That is also the first choice when no writer has
/// the file open (neither journal file beside it): a read-only connection cannot remove the journal files it created
/// when it closes, so a plain read left "-wal" and "-shm" beside a history the daemon had closed cleanly.
/// </summary>
internal static class ReadOnlyHistoryFile
{
    private const int SqliteReadOnly = 8;
    private const int SqliteCantOpen = 14;
    private const int SqliteCorrupt = 11;

    public static async Task<SqliteConnection> OpenAsync(string path, CancellationToken cancellationToken)
    {
        if (!File.Exists(path + "-wal") && !File.Exists(path + "-shm") && File.Exists(path))
        {
            var quiet = new SqliteConnection(ConnectionString(path, immutable: true));
            try
            {
                await quiet.OpenAsync(cancellationToken);
                await using var first = quiet.CreateCommand();
                first.CommandText = "SELECT 1 FROM sqlite_master LIMIT 1;";
                await first.ExecuteScalarAsync(cancellationToken);
                return quiet;
            }
            // A writer that started meanwhile: read it the ordinary way, with its journal.
            catch (SqliteException exception) when ((exception.SqliteErrorCode & 0xFF) is SqliteCorrupt && File.Exists(path + "-wal"))
            {
                await quiet.DisposeAsync();
            }
            catch
            {
                await quiet.DisposeAsync();
                throw;
            }
        }

        var connection = new SqliteConnection(ConnectionString(path, immutable: false));
        try
        {
            await connection.OpenAsync(cancellationToken);

            // SQLite opens lazily: the first read is where the shared-memory file is wanted.
            await using var probe = connection.CreateCommand();
            probe.CommandText = "SELECT 1 FROM sqlite_master LIMIT 1;";
            await probe.ExecuteScalarAsync(cancellationToken);
            return connection;
        }
        catch (SqliteException exception) when (exception.SqliteErrorCode is SqliteReadOnly or SqliteCantOpen
            && File.Exists(path) && NothingPending(path))
        {
            await connection.DisposeAsync();
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }

        var immutable = new SqliteConnection(ConnectionString(path, immutable: true));
        try
        {
            await immutable.OpenAsync(cancellationToken);
            return immutable;
        }
        catch
        {
            await immutable.DisposeAsync();
            throw;
        }
    }

    // An empty write-ahead log (SQLite may leave one behind on a failed open) holds no change either.
    private static bool NothingPending(string path)
    {
        var log = new FileInfo(path + "-wal");
        return !log.Exists || log.Length == 0;
    }

    private static string ConnectionString(string path, bool immutable) => new SqliteConnectionStringBuilder
    {
        DataSource = immutable ? new Uri(path).AbsoluteUri + "?immutable=1" : path,
        Mode = SqliteOpenMode.ReadOnly,
        Pooling = false,
    }.ToString();
}
