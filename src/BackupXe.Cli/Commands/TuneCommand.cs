using System.CommandLine;
using System.Globalization;
using System.Security.Cryptography;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe tune --server S --database D --to DIR</c>: the trial-and-measure search for the backup options of one
/// database (docs/tuning.md). A dry run by default: it reads the server's facts and prints the plan; trials run only
/// with --execute. Exit codes: 0 done, 1 command line or server unreachable, 2 refused or stopped for safety.
/// </summary>
internal static class TuneCommand
{
    /// <summary>The tune refused to run, or stopped before its next trial, for one of its safety rules.</summary>
    public const int Refused = 2;

    /// <param name="servers">How a connection becomes the server the tune talks to: the live one, or a test's.</param>
    public static Command Create(CliConsole console, Func<SqlConnectionFactory, ITuningServer>? servers = null)
    {
        var connection = new ConnectionOptions();
        var database = new Option<string>("--database", "-d") { Description = "The database whose backup is tuned.", Required = true };
        var to = new Option<string[]>("--to") { Description = "A directory on the server for the trial files, or a URL prefix for trial blobs (https://account.blob.core.windows.net/container[/path], s3://endpoint/bucket[/path]); repeat for several volumes or URLs.", Required = true, AllowMultipleArgumentsPerToken = false };
        var budget = CommonOptions.MemoryBudget();
        budget.Description = "Largest buffer memory a trial may take, as the server reports it (Total buffer space), in MB; default 1024.";
        var timeBudget = Duration("--time-budget", "How long the trials may take in all (30m, 1h, 90s); default 30m.", TuneRequest.DefaultTimeBudget);
        var window = Duration("--window", "How long each trial measures before it is stopped (60s by default).", TuneRequest.DefaultWindow);
        var freeSpace = new Option<string[]>("--free-space-mb")
        {
            Description = "DIR=MB: the free space of a --to directory whose free space the server cannot report (no database file on its volume, or Linux); repeat per directory. The report says the check was overridden.",
            AllowMultipleArgumentsPerToken = false,
        };
        var maxTrialSpace = new Option<string?>("--max-trial-space")
        {
            Description = $"The most the trial files kept on the server may hold in all (500GB, 2TB, 800MB); default {TuneRequest.DefaultTrialSpaceMultiple} full backups of the database. Trials reuse the tune's own media sets to stay within it.",
        };
        var acceptUnknown = new Option<bool>("--accept-unknown-free-space") { Description = "Write trial files where the server cannot report the free space, unchecked; the report says so. A reported shortage still refuses." };
        var history = new Option<string?>("--history")
        {
            Description = $"With --execute, store the result in this history file (the daemon's SQLite file; created or migrated if needed), where `history tunes` lists it and later backups of the database are set against it; --history alone uses {SqliteHistoryStore.DefaultPath}.",
            Arity = ArgumentArity.ZeroOrOne,
        };
        var historyServer = new Option<string?>("--history-server")
        {
            Description = "With --execute and --history-database, also store the result in the central history repository on this server (dbo.tune_runs, signed in as the tuned server is); the login's INSERT and SELECT on it, or CREATE TABLE and ALTER on schema dbo to create it when missing, and with --restore ALTER on it to add the restore columns to a table from before them, are checked before any trial.",
        };
        var historyDatabase = new Option<string?>("--history-database") { Description = "With --history-server: the central history repository database." };
        var instance = new Option<string?>("--instance", "-i") { Description = "The instance name the stored result gets in the history (as the daemon names it); default: the --server value." };
        var restore = new Option<bool>("--restore")
        {
            Description = "After the backup trials, restore trials: a complete backup restored into new scratch databases (WITH MOVE under --scratch-dir, never REPLACE), each dropped after it; needs CREATE DATABASE.",
        };
        var restoreFrom = new Option<string[]>("--restore-from") { Description = "With --restore: the complete backup (a file on the server; repeat for each stripe) to restore; by default the last trial backup that finished.", AllowMultipleArgumentsPerToken = false };
        var scratch = new Option<string?>("--scratch-dir") { Description = "With --restore: the directory on the server for the scratch databases' files." };
        var execute = new Option<bool>("--execute") { Description = "Run the trials. Without it nothing runs: the plan is printed." };
        var format = new Option<string>("--format", "-f") { Description = "console (default), json or markdown.", DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json", "markdown");
        var command = new Command("tune", "Find the fastest BACKUP options for a database by guided COPY_ONLY trials (a dry run unless --execute).")
        {
            database, to, budget, timeBudget, window, freeSpace, maxTrialSpace, acceptUnknown, restore, restoreFrom, scratch, history, historyServer, historyDatabase, instance, execute, format, CommonOptions.NoColor(),
        };
        connection.AddTo(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var request = new TuneRequest(
                parse.GetValue(database)!,
                parse.GetValue(to)!,
                CommonOptions.BudgetBytes(parse.GetValue(budget)) ?? TuneRequest.DefaultMemoryBudgetBytes,
                parse.GetValue(timeBudget),
                parse.GetValue(window),
                RunId())
            {
                AcceptUnknownFreeSpace = parse.GetValue(acceptUnknown),
                Restore = parse.GetValue(restore) ? new RestoreTuneRequest(parse.GetValue(restoreFrom) ?? [], parse.GetValue(scratch) ?? string.Empty) : null,
            };
            if (!parse.GetValue(restore) && (parse.GetResult(restoreFrom) is not null || parse.GetResult(scratch) is not null))
            {
                await console.Error.WriteLineAsync("backupxe: --restore-from and --scratch-dir go with --restore, which runs the restore trials.");
                return ExitCodes.NothingUsable;
            }

            var central = (Server: parse.GetValue(historyServer), Database: parse.GetValue(historyDatabase));
            if ((central.Server is null) != (central.Database is null) || central.Server?.Trim().Length == 0 || central.Database?.Trim().Length == 0)
            {
                await console.Error.WriteLineAsync("backupxe: --history-server and --history-database go together, each with a name: the central repository's server and database.");
                return ExitCodes.NothingUsable;
            }

            var (stated, statedProblems) = StatedFreeSpace(parse.GetValue(freeSpace) ?? []);
            var (space, spaceProblem) = parse.GetValue(maxTrialSpace) is { } spaceText ? TrialSpaceBytes(spaceText) : (null, null);
            request = request with { StatedFreeBytes = stated, MaxTrialSpaceBytes = space };
            var problems = statedProblems.Concat(spaceProblem is null ? [] : [spaceProblem]).Concat(request.Validate()).ToList();
            foreach (var problem in problems)
            {
                await console.Error.WriteLineAsync($"backupxe: {problem}");
            }

            if (problems.Count > 0)
            {
                return ExitCodes.NothingUsable;
            }

            var outputFormat = parse.GetValue(format)!;
            var run = parse.GetValue(execute);

            // Checked (created or migrated) before any trial: a history that cannot take the result stops the tune first.
            var historyFile = parse.GetResult(history) is null ? null : parse.GetValue(history) ?? SqliteHistoryStore.DefaultPath;
            if (run && historyFile is not null)
            {
                try
                {
                    await new SqliteImportedHistory(historyFile, TimeProvider.System).InitializeAsync(cancellationToken);
                }
                catch (HistoryStoreException exception)
                {
                    await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
                    return ExitCodes.NothingUsable;
                }
            }

            var session = new CaptureSessionSettings(SessionName.Default);
            return await ServerCall.RunAsync(console, parse, connection, session, async factory =>
            {
                // Trials are measured by the capture session's event file, read as watch reads it.
                // One clock for the trials' windows, the capture's polls and its settling: the console's (a test's fake one).
                await using var capture = servers is null ? new TrialOperationCapture(
                    LiveSources.Open(new LiveSourceSettings(factory, session) { Time = console.Time }),
                    new DiagnosisSettings { MemoryBudgetBytes = request.MemoryBudgetBytes },
                    console.Time) : null;
                var server = servers?.Invoke(factory) ?? new LiveTrialHost(factory, session, capture!, console.Time);
                var plan = await Tuner.PlanAsync(server, request, cancellationToken);
                if (!run || outputFormat != "json")
                {
                    await console.Out.WriteAsync(TuneReportWriter.Plan(plan, outputFormat, run));
                }

                if (!run)
                {
                    return ExitCodes.Success;
                }

                if (server is not ITrialHost host)
                {
                    await console.Error.WriteLineAsync("backupxe: --execute needs a server that can run trials; this one only describes the database. Nothing ran.");
                    return Refused;
                }

                // The central repository is made ready (least privilege read first, the table created only then) before any trial.
                var repository = central.Server is { } repositoryServer
                    ? new SqlConnectionFactory(factory.Settings with { Server = repositoryServer, Database = central.Database!, HostNameInCertificate = null })
                    : null;
                if (repository is not null && await PrepareCentralAsync(console, repository, request.Restore is not null, cancellationToken) is { } exit)
                {
                    return exit;
                }

                var tuner = new Tuner(host, request);
                try
                {
                    var result = await tuner.RunAsync(cancellationToken);
                    await console.Out.WriteAsync(TuneReportWriter.Result(result, outputFormat));
                    var record = TuneRecords.Of(result, parse.GetValue(instance) ?? factory.Settings.Server, DateTime.UtcNow);
                    var stored = historyFile is null || result.Trials.Count == 0 || await StoreAsync(console, historyFile, record);
                    stored &= repository is null || result.Trials.Count == 0 || await StoreCentralAsync(console, repository, record);
                    if (!stored)
                    {
                        return ExitCodes.NothingUsable;
                    }

                    return result.Refused || result.Restore is { Refused: true } ? Refused : ExitCodes.Success;
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    // Ctrl-C: the running backup was stopped (and confirmed gone) before this; what it left is listed.
                    const string cancelled = "tune cancelled: the running trial backup was stopped; no further trial ran.";
                    await console.Error.WriteLineAsync("backupxe: " + cancelled);
                    await console.Out.WriteAsync(TuneReportWriter.Stopped(cancelled, tuner.KeptFiles, tuner.Facts?.Linux ?? false, outputFormat));
                    return Refused;
                }
                catch (Exception failure) when (failure is not (OperationCanceledException or OutOfMemoryException))
                {
                    // A failure midway (the connection lost, a query refused) still lists what the trials left on the server.
                    var why = $"tune failed: {BackupXe.SqlServer.ConnectionStringRedactor.RedactMessage(SqlFailureText.Describe(failure))}";
                    await console.Error.WriteLineAsync("backupxe: " + TerminalText.Line(why));
                    await console.Out.WriteAsync(TuneReportWriter.Stopped(why, tuner.KeptFiles, tuner.Facts?.Linux ?? false, outputFormat));
                    return ExitCodes.NothingUsable;
                }
            }, json: outputFormat == "json");
        });
        return command;
    }

    /// <summary>The result into the history, said on stderr (stdout holds the report); false, with the reason, when it could not be stored.</summary>
    private static async Task<bool> StoreAsync(CliConsole console, string file, TuneRecord record)
    {
        try
        {
            var added = await new SqliteHistoryStore(file, TimeProvider.System).SaveTuneAsync(record, CancellationToken.None);
            await console.Error.WriteLineAsync(added
                ? $"backupxe: the tune of [{TerminalText.Line(record.Database)}] is stored in the history '{file}' as instance {TerminalText.Line(record.Instance)}."
                : $"backupxe: the history '{file}' already holds this tune.");
            return true;
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: the tune ran but its result was not stored: {exception.Message}");
            return false;
        }
    }

    /// <summary>Null when the central repository can take the tune (its table created if it was missing); else the exit code, the reason on stderr.</summary>
    private static async Task<int?> PrepareCentralAsync(CliConsole console, SqlConnectionFactory repository, bool restoreTrials, CancellationToken cancellationToken)
    {
        try
        {
            if (await new SqlServerTuneRepository(repository).PrepareAsync(restoreTrials, cancellationToken) is { } missing)
            {
                await console.Error.WriteLineAsync($"backupxe: {TerminalText.Line(missing)} Nothing ran.");
                return Refused;
            }

            return null;
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {TerminalText.Line(exception.Message)} Nothing ran.");
            return ExitCodes.NothingUsable;
        }
    }

    /// <summary>The result into the central repository, said on stderr; false, with the reason, when it could not be stored.</summary>
    private static async Task<bool> StoreCentralAsync(CliConsole console, SqlConnectionFactory repository, TuneRecord record)
    {
        var where = $"{TerminalText.Line(repository.Settings.Server)}, database [{TerminalText.Line(repository.Settings.Database)}]";
        try
        {
            var added = await new SqlServerHistoryStore(repository).SaveTuneAsync(record, CancellationToken.None);
            await console.Error.WriteLineAsync(added
                ? $"backupxe: the tune of [{TerminalText.Line(record.Database)}] is stored in the central history ({where}) as instance {TerminalText.Line(record.Instance)}."
                : $"backupxe: the central history ({where}) already holds this tune.");
            return true;
        }
        catch (Exception exception) when (exception is HistoryStoreException or Microsoft.Data.SqlClient.SqlException)
        {
            await console.Error.WriteLineAsync($"backupxe: the tune ran but its result was not stored in the central history: {TerminalText.Line(BackupXe.SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message))}");
            return false;
        }
    }

    /// <summary>"DIR=MB" pairs, split at the last '=' (a directory may hold one); a malformed one is a problem line.</summary>
    internal static (IReadOnlyDictionary<string, long> Bytes, IReadOnlyList<string> Problems) StatedFreeSpace(IEnumerable<string> values)
    {
        var bytes = new Dictionary<string, long>(StringComparer.Ordinal);
        var problems = new List<string>();
        foreach (var value in values)
        {
            var split = value.LastIndexOf('=');
            if (split <= 0 || !long.TryParse(value.AsSpan(split + 1).Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out var megabytes)
                || megabytes is < 1 or > TuneRequest.MaxStatedFreeMegabytes)
            {
                problems.Add($"--free-space-mb must be DIR=MB with MB a whole number from 1 to {TuneRequest.MaxStatedFreeMegabytes}; it is '{TerminalText.Line(value)}'.");
                continue;
            }

            if (!bytes.TryAdd(value[..split], megabytes * DiagnosisSettings.MegaByte))
            {
                problems.Add($"--free-space-mb names '{TerminalText.Line(value[..split])}' twice.");
            }
        }

        return (bytes, problems);
    }

    /// <summary>"500GB", "2TB", "800MB": a whole number and a unit, from 1 MB to 1 PB; else the problem line.</summary>
    internal static (long? Bytes, string? Problem) TrialSpaceBytes(string text)
    {
        var trimmed = text.Trim().ToUpperInvariant();
        var unit = trimmed.Length >= 3 ? trimmed[^2..] : string.Empty;
        long? scale = unit switch { "MB" => 1L << 20, "GB" => 1L << 30, "TB" => 1L << 40, _ => null };
        return scale is { } s && long.TryParse(trimmed[..^2], NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value >= 1 && value <= (1L << 50) / s
            ? (value * s, null)
            : (null, $"--max-trial-space must be a whole number of MB, GB or TB (500GB, 2TB), from 1 MB to 1 PB; it is '{TerminalText.Line(text)}'.");
    }

    /// <summary>Eight hex digits: trial files of two tunes never share a name.</summary>
    private static string RunId() => Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(4));

    /// <summary>"90s", "30m", "1h": a whole number and a unit.</summary>
    private static Option<TimeSpan> Duration(string name, string description, TimeSpan defaultValue) => new(name)
    {
        Description = description,
        DefaultValueFactory = _ => defaultValue,
        CustomParser = result =>
        {
            var text = result.Tokens.Count > 0 ? result.Tokens[^1].Value.Trim() : string.Empty;
            if (text.Length >= 2 && int.TryParse(text[..^1], NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value is > 0 and <= 1_000_000)
            {
                switch (char.ToLowerInvariant(text[^1]))
                {
                    case 's':
                        return TimeSpan.FromSeconds(value);
                    case 'm':
                        return TimeSpan.FromMinutes(value);
                    case 'h':
                        return TimeSpan.FromHours(value);
                }
            }

            result.AddError($"{name} must be a whole number of seconds, minutes or hours (90s, 30m, 1h); it is '{text}'.");
            return default;
        },
    };
}
