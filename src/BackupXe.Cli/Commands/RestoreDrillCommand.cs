using System.CommandLine;
using System.Globalization;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Drill;
using BackupXe.Core.History;
using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.Core.Diagnosis;
using BackupXe.SqlServer.Drill;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe restore-drill -S TEST -d SalesDB [--from-server PROD]</c>: plans (and with <c>--execute</c> runs) the
/// restore of a database's latest chain into a new scratch database on a server of the DBA's choice, each phase
/// measured, then drops it (docs/commands/restore-drill.md). Read only without <c>--execute</c>.
/// </summary>
internal static class RestoreDrillCommand
{
    /// <summary>The drill is refused by one of its safety rules (the plan names which): no statement that changes anything ran.</summary>
    public const int Refused = 2;

    /// <summary>The drill ran and a step failed; the report names the step, the server's error and what is left.</summary>
    public const int Failed = 3;

    /// <summary>Stopped by Ctrl-C (as every verb): what is left is named.</summary>
    public const int Cancelled = 130;

    public static Command Create(CliConsole console)
    {
        var connection = new ConnectionOptions();
        var database = new Option<string>("--database", "-d") { Description = "The database whose latest backup chain is restored (never under its own name).", Required = true };
        var fromServer = new Option<string?>("--from-server") { Description = "The server whose msdb holds the database's backups (signed in as --server is); default: --server itself, which then is the source server." };
        var since = new Option<string>("--since") { Description = "How far back msdb is read for the chain (30d, 12h, 2024-05-01), server local time.", DefaultValueFactory = _ => MsdbVerb.DefaultSince };
        var stopAt = new Option<string?>("--stopat") { Description = "Restore the log to this moment (yyyy-mm-dd hh:mm[:ss], the source server's local time) instead of the end of the chain." };
        var scratch = new Option<string?>("--scratch-name") { Description = "The scratch database's name; default DATABASE_drill_yyyyMMddHHmm (UTC). Never the source's name, never an existing database." };
        var dataFolder = new Option<string?>("--data-folder") { Description = "The folder on --server for the scratch data files; default: the server's default data path." };
        var logFolder = new Option<string?>("--log-folder") { Description = "The folder on --server for the scratch log files; default: the server's default log path." };
        var allowSource = new Option<bool>("--allow-source-server") { Description = "Run the drill even on the server the backups were taken on (refused by default)." };
        var execute = new Option<bool>("--execute") { Description = "Run the drill. Without it nothing runs: the plan is printed." };
        var checkDb = new Option<bool>("--checkdb") { Description = "With --execute: DBCC CHECKDB of the scratch database after its recovery." };
        var keep = new Option<bool>("--keep") { Description = "With --execute: keep the scratch database at the end instead of dropping it (the report says so and how to drop it)." };
        var history = new Option<string?>("--history")
        {
            Description = $"The history file (the daemon's SQLite file) whose restores and backups give the estimate's rates and, with --execute, where the drill is stored (created or migrated if needed); --history alone uses {SqliteHistoryStore.DefaultPath}.",
            Arity = ArgumentArity.ZeroOrOne,
        };
        var instance = new Option<string?>("--instance", "-i") { Description = "The instance name the stored drill gets (as the daemon names the source); default: the source server's name." };
        var format = new Option<string>("--format", "-f") { Description = "console (default), json, markdown or html.", DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json", "markdown", "html");
        var command = new Command("restore-drill", "Plan (and with --execute run) a restore of a database's latest chain into a scratch database, each phase measured, then drop it.")
        {
            database, fromServer, since, stopAt, scratch, dataFolder, logFolder, allowSource, execute, checkDb, keep, history, instance, format, CommonOptions.NoColor(),
        };
        connection.AddTo(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var now = console.Time.GetLocalNow().DateTime;
            if (TimePoint.Parse(parse.GetValue(since)!, now) is not { } from)
            {
                await console.Error.WriteLineAsync($"backupxe: --since '{parse.GetValue(since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)");
                return ExitCodes.NothingUsable;
            }

            DateTime? stop = null;
            if (parse.GetValue(stopAt) is { } stopText)
            {
                if (!DateTime.TryParseExact(stopText.Trim(), ["yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"], CultureInfo.InvariantCulture, DateTimeStyles.None, out var parsed))
                {
                    await console.Error.WriteLineAsync($"backupxe: --stopat '{stopText}': expected yyyy-mm-dd hh:mm[:ss]");
                    return ExitCodes.NothingUsable;
                }

                stop = parsed;
            }

            var run = parse.GetValue(execute);
            if (!run && (parse.GetValue(checkDb) || parse.GetValue(keep)))
            {
                await console.Error.WriteLineAsync("backupxe: --checkdb and --keep go with --execute, which runs the drill.");
                return ExitCodes.NothingUsable;
            }

            var request = new DrillRequest(
                parse.GetValue(database)!.Trim(), parse.GetValue(scratch)?.Trim(), parse.GetValue(dataFolder), parse.GetValue(logFolder), stop,
                parse.GetValue(checkDb), parse.GetValue(keep), parse.GetValue(allowSource));
            if (request.Database.Length is 0 or > RestoreDrillStatements.MaxNameLength || request.Scratch?.Length is 0 or > RestoreDrillStatements.MaxNameLength)
            {
                await console.Error.WriteLineAsync($"backupxe: --database and --scratch-name need a name of 1 to {RestoreDrillStatements.MaxNameLength} characters.");
                return ExitCodes.NothingUsable;
            }

            var historyFile = parse.GetResult(history) is null ? null : parse.GetValue(history) ?? SqliteHistoryStore.DefaultPath;
            IReadOnlyList<HistoryOperation> operations = [];
            if (historyFile is not null)
            {
                try
                {
                    if (run)
                    {
                        // Checked (created or migrated) before any statement: a history that cannot take the result stops the drill first.
                        await new SqliteImportedHistory(historyFile, console.Time).InitializeAsync(cancellationToken);
                    }

                    if (File.Exists(historyFile))
                    {
                        // The database's runs under any instance: a restore drill's source is named by the DBA, not by the history.
                        var records = await new SqliteImportedHistory(historyFile, console.Time).ReadAsync(parse.GetValue(instance), request.Database, cancellationToken);
                        operations = records.Select(r => r.Record).ToList();
                    }
                }
                catch (HistoryStoreException exception)
                {
                    await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
                    return ExitCodes.NothingUsable;
                }
            }

            var outputFormat = parse.GetValue(format)!;
            var settings = connection.Read(parse, PasswordSource.FromConsole(), console.Error);
            if (settings is null)
            {
                return ExitCodes.NothingUsable;
            }

            return await ServerCall.RunAsync(console, settings, async targetFactory =>
            {
                var sourceName = parse.GetValue(fromServer)?.Trim();
                var sourceFactory = sourceName is { Length: > 0 } && !string.Equals(sourceName, settings.Server, StringComparison.OrdinalIgnoreCase)
                    ? new SqlConnectionFactory(settings with { Server = sourceName })
                    : targetFactory;
                // Each RESTORE is measured inside the server by the capture session on the target, read as tune's trials are.
                var session = new CaptureSessionSettings(SessionName.Default);
                await using var capture = new TrialOperationCapture(LiveSources.Open(new LiveSourceSettings(targetFactory, session)), new DiagnosisSettings());
                var drill = new RestoreDrillServer(targetFactory, sourceFactory, console.Time) { Capture = (session, capture) };
                var plan = await drill.PlanAsync(request, from, operations, cancellationToken);
                var previous = historyFile is not null && File.Exists(historyFile)
                    ? await LatestAsync(historyFile, console, plan.Database, cancellationToken)
                    : null;
                if (!run || plan.Refusals.Count > 0)
                {
                    RestoreDrillWriter.Write(console.Out, outputFormat, plan, null, previous);
                    return plan.Refusals.Count > 0 ? Refused : ExitCodes.Success;
                }

                var result = await drill.ExecuteAsync(plan, cancellationToken);
                if (historyFile is not null)
                {
                    var stored = StoredDrill.Of(result, parse.GetValue(instance) ?? sourceFactory.Settings.Server);
                    await new SqliteRestoreDrills(historyFile, console.Time).SaveAsync(stored, CancellationToken.None);
                }

                RestoreDrillWriter.Write(console.Out, outputFormat, plan, result, previous);
                return result.Status switch
                {
                    DrillStatus.Completed => ExitCodes.Success,
                    DrillStatus.Cancelled => Cancelled,
                    _ => Failed,
                };
            }, json: outputFormat == "json", verbose: parse.GetValue(connection.Verbose));
        });
        return command;
    }

    private static async Task<StoredDrill?> LatestAsync(string file, CliConsole console, string database, CancellationToken cancellationToken)
    {
        try
        {
            return await new SqliteRestoreDrills(file, console.Time).LatestAsync(null, database, cancellationToken);
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
            return null;
        }
    }
}
