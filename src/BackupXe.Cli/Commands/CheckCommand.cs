using System.CommandLine;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe check --server S</c>: the preflight a DBA runs first. One line per check (pass / warn / fail) with
/// the fix; read only. Exit code 0 when nothing failed, 1 when the server could not be reached or the command
/// line was wrong, 2 when at least one check failed.
/// </summary>
internal static class CheckCommand
{
    /// <summary>The preflight ran and at least one check failed.</summary>
    public const int ChecksFailed = 2;

    public static Command Create(CliConsole console)
    {
        var connection = new ConnectionOptions();
        var format = new Option<string>("--format", "-f") { Description = "console (default) or json.", DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json");
        var sessionName = new Option<string>("--session-name") { Description = "Capture session to look for.", DefaultValueFactory = _ => SessionName.Default };
        var command = new Command("check", "Preflight a server: version, permissions, session, events, trace flags, compression, IFI, memory, msdb history.") { format, sessionName, CommonOptions.NoColor() };
        connection.AddTo(command);
        command.SetAction((parse, cancellationToken) => new ServerCheck(console).RunAsync(
            new CheckSettings(parse.GetValue(sessionName)!, parse.GetValue(format)!, connection.Of(parse)), cancellationToken));
        return command;
    }
}
