using BackupXe.Cli.Analysis;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>How a server verb ends when the server cannot be reached or refuses: one line, exit code 1.</summary>
internal static class ServerCall
{
    /// <summary>
    /// Validates the session settings and the connection options (obtaining the password), then runs
    /// <paramref name="body"/>; each problem is one line and exit code 1.
    /// </summary>
    /// <param name="json">The verb was asked for JSON: a failure is also one JSON object on standard output, so a script reading it is not handed plain text.</param>
    /// <param name="creates">The verb may create the session: its name must follow the stricter rule of a name BackupXe creates.</param>
    public static async Task<int> RunAsync(CliConsole console, ServerConnection connection, CaptureSessionSettings session, Func<SqlConnectionFactory, Task<int>> body, bool json = false, bool creates = false)
    {
        var problems = creates ? session.ValidateForCreate() : session.Validate();
        foreach (var problem in problems)
        {
            await console.Error.WriteLineAsync($"backupxe: {problem}");
        }

        var settings = problems.Count == 0 ? connection.Read(console.Error) : null;
        return settings is null ? ExitCodes.NothingUsable : await RunAsync(console, settings, body, json, connection.Verbose);
    }

    /// <summary>Runs <paramref name="body"/> on settings already read (history import reads them only when --server is given).</summary>
    /// <param name="verbose">A failure of the connection is said with the driver's own message, not only with what to do.</param>
    public static async Task<int> RunAsync(CliConsole console, SqlConnectionSettings settings, Func<SqlConnectionFactory, Task<int>> body, bool json = false, bool verbose = false)
    {
        // Seconds, not the whole connect timeout, to say that a name does not resolve or a port refuses.
        if (await ServerReachability.ProbeAsync(settings.Server, TimeSpan.FromSeconds(Math.Min(5, settings.ConnectTimeoutSeconds)), CancellationToken.None) is { } refusal)
        {
            return await FailAsync(console, settings.Server, $"cannot reach {ConnectionStringRedactor.RedactMessage(settings.Server)}: {refusal}", json);
        }

        var factory = new SqlConnectionFactory(settings);
        try
        {
            return await body(factory);
        }
        // Any failure of a server verb is one line: the driver and its Azure AD libraries have exception types of
        // their own (SqlException, MsalException, Win32Exception for SSPI), and a DBA should see none of their traces.
        catch (Exception failure) when (failure is not (OperationCanceledException or OutOfMemoryException))
        {
            var unreachable = failure is not InvalidOperationException && new SqlFailureClassifier().Classify(failure) == LiveFailureKind.Transient;
            var said = verbose ? null : SqlFailureText.ConnectionAdvice(failure);
            return await FailAsync(console, settings.Server, $"{(unreachable ? "cannot reach " : string.Empty)}{ConnectionStringRedactor.RedactMessage(settings.Server)}: {ConnectionStringRedactor.RedactMessage(said ?? SqlFailureText.Describe(failure))}", json);
        }
    }

    internal static async Task<int> FailAsync(CliConsole console, string server, string message, bool json)
    {
        await console.Error.WriteLineAsync($"backupxe: {message}");
        if (json)
        {
            var buffer = new System.Buffers.ArrayBufferWriter<byte>();
            using (var writer = new System.Text.Json.Utf8JsonWriter(buffer, new System.Text.Json.JsonWriterOptions { Indented = true }))
            {
                writer.WriteStartObject();
                writer.WriteString("server", ConnectionStringRedactor.RedactMessage(server));
                writer.WriteBoolean("reached", false);
                writer.WriteString("error", message);
                writer.WriteEndObject();
            }

            await console.Out.WriteLineAsync(System.Text.Encoding.UTF8.GetString(buffer.WrittenSpan));
        }

        return ExitCodes.NothingUsable;
    }
}
