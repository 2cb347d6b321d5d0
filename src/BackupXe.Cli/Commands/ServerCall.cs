using BackupXe.Cli.Analysis;
using BackupXe.SqlServer;
using Microsoft.Data.SqlClient;

namespace BackupXe.Cli.Commands;

/// <summary>How a server verb ends when the server cannot be reached or refuses: one line, exit code 1.</summary>
internal static class ServerCall
{
    public static async Task<int> RunAsync(SqlConnectionSettings settings, Func<SqlConnectionFactory, Task<int>> body)
    {
        var factory = new SqlConnectionFactory(settings);
        try
        {
            return await body(factory);
        }
        catch (Exception failure) when (failure is SqlException or InvalidOperationException or IOException or TimeoutException
            or System.Net.Sockets.SocketException or ServerRequirementException)
        {
            var unreachable = new SqlFailureClassifier().Classify(failure) == LiveFailureKind.Transient;
            await Console.Error.WriteLineAsync($"backupxe: {(unreachable ? "cannot reach " : string.Empty)}{settings.Server}: {SqlFailureText.Describe(failure)}");
            return ExitCodes.NothingUsable;
        }
    }
}
