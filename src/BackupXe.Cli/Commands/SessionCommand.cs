using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe session</c>: the capture session's T-SQL (the embedded sessions/*.sql, one source of truth).
/// <c>script</c> works anywhere; install/uninstall/status run the same scripts on a server (ConnectionOptions).
/// </summary>
internal static class SessionCommand
{
    public static Command Create(CliConsole console)
    {
        var command = new Command("session", "Create, remove or inspect the BackupXe Extended Events session.");
        command.Subcommands.Add(Script(console));
        foreach (var (verb, description) in new[]
                 {
                     ("install", "Create (or re-create) and start the session on a server."),
                     ("uninstall", "Stop and drop the session."),
                     ("status", "Show whether the session exists and runs, its targets, dropped events and file paths."),
                 })
        {
            command.Subcommands.Add(NeedsServer(console, verb, description));
        }

        return command;
    }

    private static Command Script(CliConsole console)
    {
        var name = SessionNameOption();
        var target = new TargetOptions();
        var drop = new Option<bool>("--drop") { Description = "Print the script that stops and drops the session instead." };
        var status = new Option<bool>("--status") { Description = "Print the status query instead." };

        var command = new Command("script", "Print the session's T-SQL, to run in SSMS or sqlcmd.") { name, drop, status, CommonOptions.NoColor() };
        target.AddTo(command);
        command.SetAction(parse =>
        {
            var sessionName = parse.GetValue(name)!;
            if (target.Read(parse, sessionName, console.Error, creates: !parse.GetValue(drop) && !parse.GetValue(status)) is not { } settings)
            {
                return ExitCodes.NothingUsable;
            }

            console.Out.Write(parse.GetValue(drop) ? SessionScripts.RenderDrop(sessionName)
                : parse.GetValue(status) ? SessionScripts.RenderStatus(sessionName)
                : SessionScripts.RenderInstall(settings));
            return ExitCodes.Success;
        });
        return command;
    }

    private static Command NeedsServer(CliConsole console, string verb, string description)
    {
        var connection = new ConnectionOptions();
        var name = SessionNameOption();
        var target = new TargetOptions();
        var command = new Command(verb, description) { name, CommonOptions.NoColor() };
        connection.AddTo(command);
        if (verb == "install")
        {
            // Every option of `session script`, so that an installed session is the one the script would create.
            target.AddTo(command);
        }

        command.SetAction(async (parse, cancellationToken) =>
        {
            var session = verb == "install" ? target.Read(parse, parse.GetValue(name)!, console.Error, creates: true) : new CaptureSessionSettings(parse.GetValue(name)!);
            if (session is null)
            {
                return ExitCodes.NothingUsable;
            }

            return await new SessionOnServer(console).RunAsync(verb, session, connection.Of(parse), cancellationToken);
        });
        return command;
    }

    /// <summary>The event_file target's options, shared by <c>script</c> and <c>install</c>.</summary>
    private sealed class TargetOptions
    {
        private readonly Option<string> _file = new("--file-path") { Description = "event_file target path (.xel), on the server.", DefaultValueFactory = _ => new CaptureSessionSettings().FilePath };
        private readonly Option<int> _maxSize = new("--max-file-size-mb") { Description = "Size of each rollover file.", DefaultValueFactory = _ => new CaptureSessionSettings().MaxFileSizeMb };
        private readonly Option<int> _rollover = new("--max-rollover-files") { Description = "Rollover files kept.", DefaultValueFactory = _ => new CaptureSessionSettings().MaxRolloverFiles };

        public void AddTo(Command command)
        {
            command.Options.Add(_file);
            command.Options.Add(_maxSize);
            command.Options.Add(_rollover);
        }

        /// <summary>The settings asked for; null after one line per problem on standard error.</summary>
        /// <param name="creates">The session is to be created: its name must follow the stricter rule.</param>
        public CaptureSessionSettings? Read(ParseResult parse, string sessionName, TextWriter error, bool creates)
        {
            var settings = new CaptureSessionSettings(sessionName, parse.GetValue(_file)!, parse.GetValue(_maxSize), parse.GetValue(_rollover));
            var problems = creates ? settings.ValidateForCreate() : settings.Validate();
            foreach (var problem in problems)
            {
                error.WriteLine($"backupxe: {problem}");
            }

            return problems.Count == 0 ? settings : null;
        }
    }

    private static Option<string> SessionNameOption()
        => new("--session-name") { Description = "Session name.", DefaultValueFactory = _ => SessionName.Default };
}
