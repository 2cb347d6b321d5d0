using Microsoft.Data.Sqlite;

namespace BackupXe.Tests.Support;

/// <summary>What a worker run left in its history file, read as a DBA would: read-only, straight from the table.</summary>
internal static class StoredHistory
{
    /// <summary>The database of every stored operation, in name order.</summary>
    public static async Task<List<string>> DatabasesAsync(string folder)
    {
        var path = Path.Combine(folder, "backupxe-history.db");
        var connectionString = new SqliteConnectionStringBuilder { DataSource = path, Mode = SqliteOpenMode.ReadOnly, Pooling = false }.ToString();
        await using var connection = new SqliteConnection(connectionString);
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT database_name FROM operations ORDER BY database_name;";
        var names = new List<string>();
        await using var reader = await command.ExecuteReaderAsync();
        while (await reader.ReadAsync())
        {
            names.Add(reader.GetString(0));
        }

        return names;
    }
}
