using System.CommandLine;
using System.Globalization;
using System.Security.Cryptography;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Rendering;
using BackupXe.Core.Tuning;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe tune</c>'s options and the <see cref="TuneSettings"/> they make, with what they got wrong.</summary>
internal sealed class TuneOptions
{
    private readonly ConnectionOptions _connection = new();
    private readonly Option<string> _database = new("--database", "-d") { Description = "The database whose backup is tuned.", Required = true };
    private readonly Option<string[]> _to = new("--to") { Description = "A directory on the server for the trial files, or a URL prefix for trial blobs (https://account.blob.core.windows.net/container[/path], s3://endpoint/bucket[/path]); repeat for several volumes or URLs.", Required = true, AllowMultipleArgumentsPerToken = false };
    private readonly Option<int?> _budget = CommonOptions.MemoryBudget();
    private readonly Option<TimeSpan> _timeBudget = Duration("--time-budget", "How long the trials may take in all (30m, 1h, 90s); default 30m.", TuneRequest.DefaultTimeBudget);
    private readonly Option<TimeSpan> _window = Duration("--window", "How long each trial measures before it is stopped (60s by default).", TuneRequest.DefaultWindow);
    private readonly Option<string[]> _freeSpace = new("--free-space-mb")
    {
        Description = "DIR=MB: the free space of a --to directory whose free space the server cannot report (no database file on its volume, or Linux); repeat per directory. The report says the check was overridden.",
        AllowMultipleArgumentsPerToken = false,
    };

    private readonly Option<string?> _maxTrialSpace = new("--max-trial-space")
    {
        Description = $"The most the trial files kept on the server may hold in all (500GB, 2TB, 800MB); default {TuneRequest.DefaultTrialSpaceMultiple} full backups of the database. Trials reuse the tune's own media sets to stay within it.",
    };

    private readonly Option<bool> _acceptUnknown = new("--accept-unknown-free-space") { Description = "Write trial files where the server cannot report the free space, unchecked; the report says so. A reported shortage still refuses." };
    private readonly Option<string?> _history = new("--history")
    {
        Description = $"With --execute, store the result in this history file (the daemon's SQLite file; created or migrated if needed), where `history tunes` lists it and later backups of the database are set against it; --history alone uses {SqliteHistoryStore.DefaultPath}.",
        Arity = ArgumentArity.ZeroOrOne,
    };

    private readonly Option<string?> _historyServer = new("--history-server")
    {
        Description = "With --execute and --history-database, also store the result in the central history repository on this server (dbo.tune_runs, signed in as the tuned server is); the login's INSERT and SELECT on it, or CREATE TABLE and ALTER on schema dbo to create it when missing, and with --restore ALTER on it to add the restore columns to a table from before them, are checked before any trial.",
    };

    private readonly Option<string?> _historyDatabase = new("--history-database") { Description = "With --history-server: the central history repository database." };
    private readonly Option<string?> _instance = new("--instance", "-i") { Description = "The instance name the stored result gets in the history (as the daemon names it); default: the --server value." };
    private readonly Option<bool> _restore = new("--restore")
    {
        Description = "After the backup trials, restore trials: a complete backup restored into new scratch databases (WITH MOVE under --scratch-dir, never REPLACE), each dropped after it; needs CREATE DATABASE.",
    };

    private readonly Option<string[]> _restoreFrom = new("--restore-from") { Description = "With --restore: the complete backup (a file on the server; repeat for each stripe) to restore; by default the last trial backup that finished.", AllowMultipleArgumentsPerToken = false };
    private readonly Option<string?> _scratch = new("--scratch-dir") { Description = "With --restore: the directory on the server for the scratch databases' files." };
    private readonly Option<bool> _execute = new("--execute") { Description = "Run the trials. Without it nothing runs: the plan is printed." };
    private readonly Option<string> _format = new("--format", "-f") { Description = "console (default), json or markdown.", DefaultValueFactory = _ => "console" };

    public TuneOptions()
    {
        _budget.Description = "Largest buffer memory a trial may take, as the server reports it (Total buffer space), in MB; default 1024.";
        Choices.OneOf(_format, "console", "json", "markdown");
    }

    public void AddTo(Command command)
    {
        foreach (var option in new Option[] { _database, _to, _budget, _timeBudget, _window, _freeSpace, _maxTrialSpace, _acceptUnknown, _restore, _restoreFrom, _scratch, _history, _historyServer, _historyDatabase, _instance, _execute, _format, CommonOptions.NoColor() })
        {
            command.Options.Add(option);
        }

        _connection.AddTo(command);
    }

    public TuneSettings Settings(ParseResult parse)
    {
        var (stated, statedProblems) = StatedFreeSpace(parse.GetValue(_freeSpace) ?? []);
        var (space, spaceProblem) = parse.GetValue(_maxTrialSpace) is { } spaceText ? TrialSpaceBytes(spaceText) : (null, null);
        var request = new TuneRequest(
            parse.GetValue(_database)!,
            parse.GetValue(_to)!,
            CommonOptions.BudgetBytes(parse.GetValue(_budget)) ?? TuneRequest.DefaultMemoryBudgetBytes,
            parse.GetValue(_timeBudget),
            parse.GetValue(_window),
            RunId())
        {
            AcceptUnknownFreeSpace = parse.GetValue(_acceptUnknown),
            Restore = parse.GetValue(_restore) ? new RestoreTuneRequest(parse.GetValue(_restoreFrom) ?? [], parse.GetValue(_scratch) ?? string.Empty) : null,
            StatedFreeBytes = stated,
            MaxTrialSpaceBytes = space,
        };
        var central = (Server: parse.GetValue(_historyServer), Database: parse.GetValue(_historyDatabase));

        // The first rule broken is said alone, as the tune has always said it; the request's own problems all together.
        IReadOnlyList<string> problems =
            !parse.GetValue(_restore) && (parse.GetResult(_restoreFrom) is not null || parse.GetResult(_scratch) is not null)
                ? ["--restore-from and --scratch-dir go with --restore, which runs the restore trials."]
            : (central.Server is null) != (central.Database is null) || central.Server?.Trim().Length == 0 || central.Database?.Trim().Length == 0
                ? ["--history-server and --history-database go together, each with a name: the central repository's server and database."]
            : [.. statedProblems, .. spaceProblem is null ? [] : new[] { spaceProblem }, .. request.Validate()];
        return new TuneSettings
        {
            Request = request,
            Problems = problems,
            Format = parse.GetValue(_format)!,
            Execute = parse.GetValue(_execute),
            HistoryFile = parse.GetResult(_history) is null ? null : parse.GetValue(_history) ?? SqliteHistoryStore.DefaultPath,
            Central = central.Server is { } server && central.Database is { } database ? (server, database) : null,
            Instance = parse.GetValue(_instance),
            Connection = _connection.Of(parse),
        };
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
