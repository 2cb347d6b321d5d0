using BackupXe.Cli.Analysis;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs <c>backupxe session install</c>, <c>uninstall</c> or <c>status</c> on a server: the same scripts as
/// <c>session script</c> prints, what changed and the session's status written to <paramref name="console"/>.
/// </summary>
internal sealed class SessionOnServer(CliConsole console)
{
    /// <param name="verb">install, uninstall or status.</param>
    public Task<int> RunAsync(string verb, CaptureSessionSettings session, ServerConnection connection, CancellationToken cancellationToken)
        => ServerCall.RunAsync(console, connection, session, async factory =>
        {
            var client = new SessionClient(factory, session);
            return verb switch
            {
                "install" => Report(await client.InstallAsync(cancellationToken), factory.Settings.Server, installing: true),
                "uninstall" => Report(await client.UninstallAsync(cancellationToken), factory.Settings.Server, installing: false),
                _ => Print(await StatusLinesAsync(client, factory.Settings.Server, cancellationToken)),
            };
        });

    /// <summary>The status, and for an installed session how its wait filter compares with this build.</summary>
    private static async Task<IReadOnlyList<string>> StatusLinesAsync(SessionClient client, string server, CancellationToken cancellationToken)
    {
        var status = await client.StatusAsync(cancellationToken);
        var lines = SessionStatusFormatter.Format(status);
        return status.Exists
            ? [.. lines, .. SessionStatusFormatter.FormatDrift(await client.DriftAsync(cancellationToken), SessionRepair.Reinstall(server, status))]
            : lines;
    }

    private int Report(SessionInstallOutcome outcome, string server, bool installing)
    {
        if (outcome.Problems.Count > 0)
        {
            console.Error.WriteLine($"backupxe: {server}: nothing was changed.");
            foreach (var problem in outcome.Problems)
            {
                console.Error.WriteLine($"backupxe: {problem.Message}");
            }

            return ExitCodes.NothingUsable;
        }

        foreach (var message in outcome.ServerMessages)
        {
            console.Out.WriteLine(message);
        }

        var name = (outcome.After ?? outcome.Before)!.SessionName;
        if (installing)
        {
            console.Out.WriteLine(outcome.Before is { Exists: true }
                ? $"Session {name} was already present on {server}: re-created with map keys resolved on this build."
                : $"Session {name} created on {server}.");
        }
        else
        {
            console.Out.WriteLine(outcome.Before is { Exists: true }
                ? $"Session {name} stopped and dropped on {server}; its .xel files stay on the server's disk."
                : $"Session {name} is not installed on {server}; nothing to do.");
        }

        var lines = SessionStatusFormatter.Format(outcome.After!);
        var ok = installing ? outcome.Installed : outcome.After is { Exists: false };
        return ok ? Print(lines) : PrintAndFail(lines);
    }

    private int Print(IReadOnlyList<string> lines)
    {
        foreach (var line in lines)
        {
            console.Out.WriteLine(line);
        }

        return ExitCodes.Success;
    }

    private int PrintAndFail(IReadOnlyList<string> lines)
    {
        Print(lines);
        return ExitCodes.NothingUsable;
    }
}
