using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;

namespace BackupXe.Cli.Commands;

/// <summary>Reads a verb's report from the server: msdb's backups since <c>since</c> of <c>databases</c> (all when empty).</summary>
internal delegate Task<IReadOnlyList<T>> MsdbRead<T>(SqlConnectionFactory server, DateTime since, IReadOnlyCollection<string> databases, CancellationToken cancellationToken);

/// <summary>
/// The skeleton of a verb that reports on msdb's backups over a span (<c>history chain</c>, <c>history
/// restore-estimate</c>): <c>--since</c>, <c>--database</c>, <c>--format</c> (console, markdown, json, html),
/// <c>--output</c>, <c>--no-color</c> and the connection options; a bad <c>--since</c> or connection option is one line
/// and exit code 1, a server failure goes through <see cref="ServerCall"/>, and the report through <see cref="MsdbSpan"/>.
/// </summary>
internal sealed class MsdbVerb
{
    /// <summary>msdb is read over the last 30 days unless --since says otherwise: long enough to hold a weekly full backup.</summary>
    public const string DefaultSince = "30d";

    private readonly Option<string> _since;
    private readonly Option<string[]> _databases = OperationFilter.DatabaseOption();
    private readonly Option<string> _format = new("--format", "-f") { Description = "console (default), markdown, json or html (docs/html-report.md).", DefaultValueFactory = _ => "console" };
    private readonly ConnectionOptions _connection = new();
    private readonly CliConsole _console;

    public MsdbVerb(CliConsole console, string name, string description, string sinceDescription)
    {
        _console = console;
        _since = new Option<string>("--since") { Description = sinceDescription, DefaultValueFactory = _ => DefaultSince };
        Choices.OneOf(_format, "console", "markdown", "json", "html");
        Command = new Command(name, description) { _since, _databases, _format, Output, CommonOptions.NoColor() };
        CommonOptions.RefuseHtmlToTerminal(_console, Command, _format, Output);
    }

    public Command Command { get; }

    public Option<string?> Output { get; } = CommonOptions.Output();

    /// <summary>
    /// Runs the verb with <typeparamref name="TWriter"/>'s formats: <paramref name="prepare"/> runs once --since is read
    /// and before any connection (it reads what the verb needs besides the server, saying any problem itself), and
    /// returns the server read, or null to stop with exit code 1. Call after every option is added.
    /// </summary>
    public void SetAction<T, TWriter>(Func<ParseResult, CancellationToken, Task<MsdbRead<T>?>> prepare)
        where TWriter : IMsdbReportWriter<T>
    {
        _connection.AddTo(Command);
        Command.SetAction(async (parse, cancellationToken) =>
        {
            if (TimePoint.Parse(parse.GetValue(_since)!, DateTime.Now) is not { } from)
            {
                await _console.Error.WriteLineAsync($"backupxe: --since '{parse.GetValue(_since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)");
                return ExitCodes.NothingUsable;
            }

            if (await prepare(parse, cancellationToken) is not { } read)
            {
                return ExitCodes.NothingUsable;
            }

            var wanted = OperationFilter.Names(parse.GetValue(_databases));
            var format = parse.GetValue(_format)!;
            var settings = _connection.Read(parse, PasswordSource.FromConsole(), _console.Error);
            if (settings is null)
            {
                return ExitCodes.NothingUsable;
            }

            return await ServerCall.RunAsync(_console, settings, async factory =>
            {
                var items = await read(factory, from, wanted, cancellationToken);
                return await CommonOptions.WriteAsync(_console, parse.GetValue(Output), writer =>
                {
                    MsdbSpan.Write<T, TWriter>(writer, format, factory.Settings.Server, from, items);
                    return Task.FromResult(ExitCodes.Success);
                }, cancellationToken);
            }, json: format == "json", verbose: parse.GetValue(_connection.Verbose));
        });
    }
}
