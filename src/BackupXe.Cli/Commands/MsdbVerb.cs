using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Fleet;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;

namespace BackupXe.Cli.Commands;

/// <summary>Reads a verb's report from the server: msdb's backups since <c>since</c> of <c>databases</c> (all when empty).</summary>
internal delegate Task<IReadOnlyList<T>> MsdbRead<T>(SqlConnectionFactory server, DateTime since, IReadOnlyCollection<string> databases, CancellationToken cancellationToken);

/// <summary>Makes a verb's report from a history alone: each database with its records (an availability group database's from every replica).</summary>
internal delegate Task<IReadOnlyList<T>> HistoryRead<T>(ParseResult parse, string file, IReadOnlyList<ComplianceInput> databases, CancellationToken cancellationToken);

/// <summary>
/// The skeleton of a verb that reports on msdb's backups over a span (<c>history chain</c>, <c>history
/// restore-estimate</c>): <c>--since</c>, <c>--database</c>, <c>--format</c> (console, markdown, json, html),
/// <c>--output</c>, <c>--no-color</c>, <c>--history</c>, <c>--instance</c> and the connection options; a bad <c>--since</c>
/// or connection option is one line and exit code 1, a server failure goes through <see cref="ServerCall"/>, and the
/// report through <see cref="MsdbSpan"/>. Without <c>--server</c> the report comes from the history file alone
/// (<see cref="History"/>, the daemon's by default): fresh rows from msdb only when a server is named.
/// </summary>
internal sealed class MsdbVerb
{
    /// <summary>msdb is read over the last 30 days unless --since says otherwise: long enough to hold a weekly full backup.</summary>
    public const string DefaultSince = "30d";

    private readonly Option<string> _since;
    private readonly Option<string[]> _databases = OperationFilter.DatabaseOption();
    private readonly Option<string> _format = new("--format", "-f") { Description = "console (default), markdown, json or html (docs/html-report.md).", DefaultValueFactory = _ => "console" };
    private readonly ConnectionOptions _connection = new(serverRequired: false);
    private readonly CliConsole _console;

    /// <param name="historyDescription">What --history means for this verb.</param>
    public MsdbVerb(CliConsole console, string name, string description, string sinceDescription, string historyDescription)
    {
        _console = console;
        History = new HistoryOptions(historyDescription);
        _since = new Option<string>("--since") { Description = sinceDescription, DefaultValueFactory = _ => DefaultSince };
        Choices.OneOf(_format, "console", "markdown", "json", "html");
        Command = new Command(name, description) { _since, _databases, _format, Output, CommonOptions.NoColor() };
        CommonOptions.RefuseHtmlToTerminal(_console, Command, _format, Output);
        History.AddTo(Command);
    }

    public Command Command { get; }

    /// <summary>--history and --instance: the file the report comes from without --server, and with it what the verb reads besides msdb.</summary>
    public HistoryOptions History { get; }

    public Option<string?> Output { get; } = CommonOptions.Output();

    /// <summary>
    /// Runs the verb with <typeparamref name="TWriter"/>'s formats: <paramref name="prepare"/> runs once --since is read
    /// and before any connection (it reads what the verb needs besides the server, saying any problem itself), and
    /// returns the server read, or null to stop with exit code 1. Call after every option is added.
    /// </summary>
    /// <param name="fromHistory">The report from the history's databases, when no server is named.</param>
    public void SetAction<T, TWriter>(Func<ParseResult, CancellationToken, Task<MsdbRead<T>?>> prepare, HistoryRead<T> fromHistory)
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

            var wanted = OperationFilter.Names(parse.GetValue(_databases));
            var format = parse.GetValue(_format)!;
            if (parse.GetValue(_connection.Server) is null)
            {
                return await FromHistoryAsync<T, TWriter>(parse, from, wanted, format, fromHistory, cancellationToken);
            }

            if (await prepare(parse, cancellationToken) is not { } read)
            {
                return ExitCodes.NothingUsable;
            }

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

    /// <summary>
    /// The report from the history file (--history, else the daemon's): its backups since <paramref name="from"/> of the
    /// instance --instance names, or of the one instance it holds, each availability group database with its other
    /// replicas' rows (docs/fleet.md). Without a history, or with several instances and no --instance, one line and exit 1.
    /// </summary>
    private async Task<int> FromHistoryAsync<T, TWriter>(
        ParseResult parse, DateTime from, IReadOnlyCollection<string> wanted, string format, HistoryRead<T> fromHistory, CancellationToken cancellationToken)
        where TWriter : IMsdbReportWriter<T>
    {
        var file = History.PathOf(parse) ?? DaemonHistory.Path();
        if (History.PathOf(parse) is null && !File.Exists(file))
        {
            await _console.Error.WriteLineAsync($"backupxe: {Command.Name} needs --server (msdb) or a history: none at {string.Join(", ", DaemonHistory.Candidates().Select(c => $"'{c}'"))}; name it with --history FILE.");
            return ExitCodes.NothingUsable;
        }

        var (records, problem) = await HistoryOptions.ReadAsync(file, _console.Error, cancellationToken);
        if (records is null)
        {
            await _console.Error.WriteLineAsync(problem);
            return ExitCodes.NothingUsable;
        }

        var instances = records.Select(r => r.Instance).Distinct(StringComparer.OrdinalIgnoreCase).Order(StringComparer.OrdinalIgnoreCase).ToList();
        var instance = History.InstanceOf(parse);
        if (instance is null && instances.Count > 1)
        {
            await _console.Error.WriteLineAsync($"backupxe: {file} holds {instances.Count} instances ({string.Join(", ", instances.Select(Core.Rendering.TerminalText.Line))}): name one with --instance.");
            return ExitCodes.NothingUsable;
        }

        instance ??= instances.FirstOrDefault() ?? Path.GetFileName(file);
        var databases = FleetDatabases.Inputs(records.Where(r => r.Record.Start >= from))
            .Where(d => d.Replicas.Contains(instance, StringComparer.OrdinalIgnoreCase)
                && (wanted.Count == 0 || wanted.Contains(d.Database, StringComparer.OrdinalIgnoreCase)))
            .OrderBy(d => d.Database, StringComparer.OrdinalIgnoreCase)
            .ToList();
        var items = await fromHistory(parse, file, databases, cancellationToken);
        return await CommonOptions.WriteAsync(_console, parse.GetValue(Output), writer =>
        {
            if (format == "console")
            {
                // The source first: the same verb with --server reads msdb, and the two may differ.
                writer.WriteLine($"From the history file {file}, instance {Core.Rendering.TerminalText.Line(instance)} (--server reads msdb instead)");
            }

            MsdbSpan.Write<T, TWriter>(writer, format, instance, from, items);
            return Task.FromResult(ExitCodes.Success);
        }, cancellationToken);
    }
}
