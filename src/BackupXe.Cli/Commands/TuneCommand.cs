using System.CommandLine;
using System.Globalization;
using System.Security.Cryptography;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Tuning;
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
    public static Command Create(Func<SqlConnectionFactory, ITuningServer>? servers = null)
    {
        var connection = new ConnectionOptions();
        var database = new Option<string>("--database", "-d") { Description = "The database whose backup is tuned.", Required = true };
        var to = new Option<string[]>("--to") { Description = "A directory on the server for the trial files; repeat for several volumes.", Required = true, AllowMultipleArgumentsPerToken = false };
        var budget = CommonOptions.MemoryBudget();
        budget.Description = "Largest buffer memory a trial may take, as the server reports it (Total buffer space), in MB; default 1024.";
        var timeBudget = Duration("--time-budget", "How long the trials may take in all (30m, 1h, 90s); default 30m.", TuneRequest.DefaultTimeBudget);
        var window = Duration("--window", "How long each trial measures before it is stopped (60s by default).", TuneRequest.DefaultWindow);
        var execute = new Option<bool>("--execute") { Description = "Run the trials. Without it nothing runs: the plan is printed." };
        var format = new Option<string>("--format", "-f") { Description = "console (default), json or markdown.", DefaultValueFactory = _ => "console" };
        format.AcceptOnlyFromAmong("console", "json", "markdown");
        var command = new Command("tune", "Find the fastest BACKUP options for a database by guided COPY_ONLY trials (a dry run unless --execute).")
        {
            database, to, budget, timeBudget, window, execute, format, CommonOptions.NoColor(),
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
                RunId());
            var problems = request.Validate();
            foreach (var problem in problems)
            {
                await Console.Error.WriteLineAsync($"backupxe: {problem}");
            }

            if (problems.Count > 0)
            {
                return ExitCodes.NothingUsable;
            }

            var outputFormat = parse.GetValue(format)!;
            var run = parse.GetValue(execute);
            var session = new CaptureSessionSettings(SessionName.Default);
            return await ServerCall.RunAsync(parse, connection, session, async factory =>
            {
                // Trials are measured by the capture session's event file, read as watch reads it.
                await using var capture = servers is null ? new TrialOperationCapture(
                    LiveSources.Open(new LiveSourceSettings(factory, session)),
                    new DiagnosisSettings { MemoryBudgetBytes = request.MemoryBudgetBytes }) : null;
                var server = servers?.Invoke(factory) ?? new LiveTrialHost(factory, session, capture!);
                var plan = await Tuner.PlanAsync(server, request, cancellationToken);
                if (!run || outputFormat != "json")
                {
                    await Console.Out.WriteAsync(TuneReportWriter.Plan(plan, outputFormat, run));
                }

                if (!run)
                {
                    return ExitCodes.Success;
                }

                if (server is not ITrialHost host)
                {
                    await Console.Error.WriteLineAsync("backupxe: --execute needs a server that can run trials; this one only describes the database. Nothing ran.");
                    return Refused;
                }

                var tuner = new Tuner(host, request);
                try
                {
                    var result = await tuner.RunAsync(cancellationToken);
                    await Console.Out.WriteAsync(TuneReportWriter.Result(result, outputFormat));
                    return result.Refused ? Refused : ExitCodes.Success;
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    // Ctrl-C: the running backup was stopped (and confirmed gone) before this; what it left is listed.
                    await Console.Error.WriteLineAsync("backupxe: tune cancelled: the running trial backup was stopped; no further trial ran.");
                    await Console.Out.WriteAsync(TuneReportWriter.KeptFiles(tuner.KeptFiles, tuner.Facts?.Linux ?? false, outputFormat == "markdown"));
                    return Refused;
                }
            }, json: outputFormat == "json");
        });
        return command;
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
