using System.CommandLine;
using System.Globalization;
using BackupXe.Core.Drill;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe restore-drill</c>'s options and the <see cref="RestoreDrillSettings"/> they make.</summary>
internal sealed class RestoreDrillOptions
{
    private readonly ConnectionOptions _connection = new();
    private readonly Option<string> _database = new("--database", "-d") { Description = "The database whose latest backup chain is restored (never under its own name).", Required = true };
    private readonly Option<string?> _fromServer = new("--from-server") { Description = "The server whose msdb holds the database's backups (signed in as --server is); default: --server itself, which then is the source server." };
    private readonly Option<string> _since = new("--since") { Description = "How far back msdb is read for the chain (30d, 12h, 2024-05-01), server local time.", DefaultValueFactory = _ => MsdbVerb.DefaultSince };
    private readonly Option<string?> _stopAt = new("--stopat") { Description = "Restore the log to this moment (yyyy-mm-dd hh:mm[:ss], the source server's local time) instead of the end of the chain." };
    private readonly Option<string?> _scratch = new("--scratch-name") { Description = "The scratch database's name; default DATABASE_drill_yyyyMMddHHmm (UTC). Never the source's name, never an existing database." };
    private readonly Option<string?> _dataFolder = new("--data-folder") { Description = "The folder on --server for the scratch data files; default: the server's default data path." };
    private readonly Option<string?> _logFolder = new("--log-folder") { Description = "The folder on --server for the scratch log files; default: the server's default log path." };
    private readonly Option<bool> _allowSource = new("--allow-source-server") { Description = "Run the drill even on the server the backups were taken on (refused by default)." };
    private readonly Option<bool> _execute = new("--execute") { Description = "Run the drill. Without it nothing runs: the plan is printed." };
    private readonly Option<bool> _checkDb = new("--checkdb") { Description = "With --execute: DBCC CHECKDB of the scratch database after its recovery." };
    private readonly Option<bool> _keep = new("--keep") { Description = "With --execute: keep the scratch database at the end instead of dropping it (the report says so and how to drop it)." };
    private readonly Option<string?> _history = new("--history")
    {
        Description = $"The history file (the daemon's SQLite file) whose restores and backups give the estimate's rates and, with --execute, where the drill is stored (created or migrated if needed); --history alone uses {SqliteHistoryStore.DefaultPath}.",
        Arity = ArgumentArity.ZeroOrOne,
    };

    private readonly Option<string?> _instance = new("--instance", "-i") { Description = "The instance name the stored drill gets (as the daemon names the source); default: the source server's name." };
    private readonly Option<string> _format = new("--format", "-f") { Description = "console (default), json, markdown or html.", DefaultValueFactory = _ => "console" };

    public RestoreDrillOptions() => Choices.OneOf(_format, "console", "json", "markdown", "html");

    public void AddTo(Command command)
    {
        foreach (var option in new Option[] { _database, _fromServer, _since, _stopAt, _scratch, _dataFolder, _logFolder, _allowSource, _execute, _checkDb, _keep, _history, _instance, _format, CommonOptions.NoColor() })
        {
            command.Options.Add(option);
        }

        _connection.AddTo(command);
    }

    /// <param name="now">The local time --since counts back from.</param>
    public RestoreDrillSettings Settings(ParseResult parse, DateTime now)
    {
        var settings = new RestoreDrillSettings
        {
            FromServer = parse.GetValue(_fromServer)?.Trim(),
            HistoryFile = parse.GetResult(_history) is null ? null : parse.GetValue(_history) ?? SqliteHistoryStore.DefaultPath,
            Instance = parse.GetValue(_instance),
            Execute = parse.GetValue(_execute),
            Format = parse.GetValue(_format)!,
            Connection = _connection.Of(parse),
        };
        if (TimePoint.Parse(parse.GetValue(_since)!, now) is not { } from)
        {
            return settings with { Problem = $"--since '{parse.GetValue(_since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)" };
        }

        DateTime? stop = null;
        if (parse.GetValue(_stopAt) is { } stopText)
        {
            if (!DateTime.TryParseExact(stopText.Trim(), ["yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"], CultureInfo.InvariantCulture, DateTimeStyles.None, out var parsed))
            {
                return settings with { Problem = $"--stopat '{stopText}': expected yyyy-mm-dd hh:mm[:ss]" };
            }

            stop = parsed;
        }

        if (!settings.Execute && (parse.GetValue(_checkDb) || parse.GetValue(_keep)))
        {
            return settings with { Problem = "--checkdb and --keep go with --execute, which runs the drill." };
        }

        var request = new DrillRequest(
            parse.GetValue(_database)!.Trim(), parse.GetValue(_scratch)?.Trim(), parse.GetValue(_dataFolder), parse.GetValue(_logFolder), stop,
            parse.GetValue(_checkDb), parse.GetValue(_keep), parse.GetValue(_allowSource));
        return request.Database.Length is 0 or > RestoreDrillStatements.MaxNameLength || request.Scratch?.Length is 0 or > RestoreDrillStatements.MaxNameLength
            ? settings with { Problem = $"--database and --scratch-name need a name of 1 to {RestoreDrillStatements.MaxNameLength} characters." }
            : settings with { Request = request, Since = from };
    }
}
