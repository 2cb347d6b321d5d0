using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.SqlServer;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe session</c>: the capture session's T-SQL (the embedded sessions/*.sql, one source of truth).
/// <c>script</c> works anywhere; install/uninstall/status need a server connection.
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
        var server = new Option<string>("--server", "-S") { Description = "SQL Server instance.", Required = true };
        var command = new Command(verb, description) { server, SessionNameOption() };
        command.SetAction(parse =>
        {
            Console.Error.WriteLine(
                $"backupxe: 'session {verb}' connects to {parse.GetValue(server)}, which needs Microsoft.Data.SqlClient; this build does not include it "
                + "(the package source could not provide it). Run the same T-SQL yourself: "
                + $"'backupxe session script{(verb == "uninstall" ? " --drop" : verb == "status" ? " --status" : string.Empty)} > backupxe.sql' "
                + $"then 'sqlcmd -S {parse.GetValue(server)} -i backupxe.sql' (or open it in SSMS).");
            return ExitCodes.NothingUsable;
        });
        return command;
    }

    private static Option<string> SessionNameOption()
        => new("--session-name") { Description = "Session name.", DefaultValueFactory = _ => SessionName.Default };
}
