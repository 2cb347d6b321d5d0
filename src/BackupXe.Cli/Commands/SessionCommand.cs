using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.SqlServer;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe session</c>: the capture session's T-SQL (the embedded sessions/*.sql, one source of truth).
/// <c>script</c> works anywhere; install/uninstall/status run the same scripts on a server (ConnectionOptions).
/// </summary>
public static class SessionCommand
{
    public static Command Create()
    {
        var command = new Command("session", "Create, remove or inspect the BackupXe Extended Events session.");
        command.Subcommands.Add(Script());
        foreach (var (verb, description) in new[]
                 {
                     ("install", "Create (or re-create) and start the session on a server."),
                     ("uninstall", "Stop and drop the session."),
                     ("status", "Show whether the session exists and runs, its targets, dropped events and file paths."),
                 })
        {
            command.Subcommands.Add(NeedsServer(verb, description));
        }

        return command;
    }

    private static Command Script()
    {
        var name = SessionNameOption();
        var file = new Option<string>("--file-path") { Description = "event_file target path (.xel), on the server.", DefaultValueFactory = _ => new CaptureSessionSettings().FilePath };
        var maxSize = new Option<int>("--max-file-size-mb") { Description = "Size of each rollover file.", DefaultValueFactory = _ => new CaptureSessionSettings().MaxFileSizeMb };
        var rollover = new Option<int>("--max-rollover-files") { Description = "Rollover files kept.", DefaultValueFactory = _ => new CaptureSessionSettings().MaxRolloverFiles };
        var drop = new Option<bool>("--drop") { Description = "Print the script that stops and drops the session instead." };
        var status = new Option<bool>("--status") { Description = "Print the status query instead." };

        var command = new Command("script", "Print the session's T-SQL, to run in SSMS or sqlcmd.") { name, file, maxSize, rollover, drop, status };
        command.SetAction(parse =>
        {
            var sessionName = parse.GetValue(name)!;
            var settings = new CaptureSessionSettings(sessionName, parse.GetValue(file)!, parse.GetValue(maxSize), parse.GetValue(rollover));
            var problems = settings.Validate();
            if (problems.Count > 0)
            {
                foreach (var problem in problems)
                {
                    Console.Error.WriteLine($"backupxe: {problem}");
                }

                return ExitCodes.NothingUsable;
            }

            Console.Out.Write(parse.GetValue(drop) ? SessionScripts.RenderDrop(sessionName)
                : parse.GetValue(status) ? SessionScripts.RenderStatus(sessionName)
                : SessionScripts.RenderInstall(settings));
            return ExitCodes.Success;
        });
        return command;
    }

    private static Command NeedsServer(string verb, string description)
    {
        var connection = new ConnectionOptions();
        var name = SessionNameOption();
        var file = new Option<string>("--file-path") { Description = "event_file target path (.xel), on the server (install only).", DefaultValueFactory = _ => new CaptureSessionSettings().FilePath };
        var command = new Command(verb, description) { name };
        connection.AddTo(command);
        if (verb == "install")
        {
            command.Options.Add(file);
        }

        command.SetAction(async (parse, cancellationToken) =>
        {
            var session = new CaptureSessionSettings(parse.GetValue(name)!, verb == "install" ? parse.GetValue(file)! : new CaptureSessionSettings().FilePath);
            var problems = session.Validate();
            foreach (var problem in problems)
            {
                await Console.Error.WriteLineAsync($"backupxe: {problem}");
            }

            var settings = problems.Count == 0 ? connection.Read(parse, PasswordSource.FromConsole(), Console.Error) : null;
            if (settings is null)
            {
                return ExitCodes.NothingUsable;
            }

            return await ServerCall.RunAsync(settings, async factory =>
            {
                var client = new SessionClient(factory, session);
                return verb switch
                {
                    "install" => Report(await client.InstallAsync(cancellationToken), settings.Server, installing: true),
                    "uninstall" => Report(await client.UninstallAsync(cancellationToken), settings.Server, installing: false),
                    _ => Print(SessionStatusFormatter.Format(await client.StatusAsync(cancellationToken))),
                };
            });
        });
        return command;
    }

    private static int Report(SessionInstallOutcome outcome, string server, bool installing)
    {
        if (outcome.Problems.Count > 0)
        {
            Console.Error.WriteLine($"backupxe: {server}: nothing was changed.");
            foreach (var problem in outcome.Problems)
            {
                Console.Error.WriteLine($"backupxe: {problem.Message}");
            }

            return ExitCodes.NothingUsable;
        }

        foreach (var message in outcome.ServerMessages)
        {
            Console.Out.WriteLine(message);
        }

        var name = (outcome.After ?? outcome.Before)!.SessionName;
        if (installing)
        {
            Console.Out.WriteLine(outcome.Before is { Exists: true }
                ? $"Session {name} was already present on {server}: re-created with map keys resolved on this build."
                : $"Session {name} created on {server}.");
        }
        else
        {
            Console.Out.WriteLine(outcome.Before is { Exists: true }
                ? $"Session {name} stopped and dropped on {server}; its .xel files stay on the server's disk."
                : $"Session {name} is not installed on {server}; nothing to do.");
        }

        var lines = SessionStatusFormatter.Format(outcome.After!);
        var ok = installing ? outcome.Installed : outcome.After is { Exists: false };
        return ok ? Print(lines) : PrintAndFail(lines);
    }

    private static int Print(IReadOnlyList<string> lines)
    {
        foreach (var line in lines)
        {
            Console.Out.WriteLine(line);
        }

        return ExitCodes.Success;
    }

    private static int PrintAndFail(IReadOnlyList<string> lines)
    {
        Print(lines);
        return ExitCodes.NothingUsable;
    }

    private static Option<string> SessionNameOption()
        => new("--session-name") { Description = "Session name.", DefaultValueFactory = _ => SessionName.Default };
}
