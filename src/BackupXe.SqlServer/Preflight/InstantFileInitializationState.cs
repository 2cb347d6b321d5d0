using BackupXe.SqlServer.Client;

namespace BackupXe.SqlServer.Preflight;

/// <summary>
/// Whether the engine's service account has Instant File Initialization (<see cref="PreflightQueries.InstantFileInitialization"/>),
/// read on a connection of its own: what a restore estimate needs to time the zeroing of data files.
/// </summary>
internal static class InstantFileInitializationState
{
    /// <summary>True or false as the server says (Y/N); null when the build has no such column or the login may not read it.</summary>
    public static async Task<bool?> ReadAsync(SqlConnectionFactory factory, CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = factory.Command(connection, PreflightQueries.InstantFileInitialization);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            return await reader.ReadAsync(cancellationToken).ConfigureAwait(false)
                ? SqlRows.Text(reader, "instant_file_initialization_enabled")?.Trim().ToUpperInvariant() switch { "Y" => true, "N" => false, _ => null }
                : null;
        }
        catch (Microsoft.Data.SqlClient.SqlException)
        {
            return null;
        }
    }
}
