using System.CommandLine;
using BackupXe.Core.Baselines;
using BackupXe.Core.History;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>--history</c> and <c>--instance</c> of <c>analyze</c> and <c>watch</c>: the history file each operation is set
/// against (docs/history.md, "This run against its history").
/// </summary>
internal sealed class HistoryOptions
{
    private readonly Option<string?> _path = new("--history")
    {
        Description = $"Set each operation against its own series in this history file (the daemon's SQLite file); --history alone reads the daemon's: {DaemonHistory.Variable}, else {SqliteHistoryStore.DefaultPath} here, else the service's data folder.",
        Arity = ArgumentArity.ZeroOrOne,
    };

    private readonly Option<string?> _instance = new("--instance", "-i")
    {
        Description = "The instance (as the history names it) the analysed operations ran on; needed only when the history holds the same database on several instances.",
    };

    /// <param name="description">The --history help of a verb that reads the history for something else than the comparison.</param>
    public HistoryOptions(string? description = null)
    {
        if (description is not null)
        {
            _path.Description = description;
        }
    }

    public void AddTo(Command command)
    {
        command.Options.Add(_path);
        command.Options.Add(_instance);
    }

    /// <summary>
    /// The history file named; the daemon's file for <c>--history</c> alone (<see cref="DaemonHistory"/>); null without
    /// the option. Never picked up unasked: an analysis must not change with the folder it is run from.
    /// </summary>
    public string? PathOf(ParseResult parse)
        => parse.GetResult(_path) is null ? null : parse.GetValue(_path) ?? DaemonHistory.Path();

    /// <summary>The same, for a command's validator (which sees the command's result, not the whole parse).</summary>
    public string? PathOf(System.CommandLine.Parsing.CommandResult result)
        => result.GetResult(_path) is null ? null : result.GetValue(_path) ?? DaemonHistory.Path();

    /// <summary>Whether <c>--history</c> was given without a file: a missing one is then said with every place looked.</summary>
    private bool Defaulted(ParseResult parse) => parse.GetResult(_path) is not null && parse.GetValue(_path) is null;

    /// <summary>What the command line named, for a runner's settings record; null without <c>--history</c>.</summary>
    public HistoryChoice? ChoiceOf(ParseResult parse)
        => PathOf(parse) is { } file ? new HistoryChoice(file, Defaulted(parse), parse.GetValue(_instance)) : null;

    /// <summary>
    /// The history of <paramref name="choice"/> read once, or null when none is named. A named file that is missing or
    /// not a BackupXe history is said on stderr and ends the command (<c>Error</c> set).
    /// </summary>
    public static async Task<(BaselineContext? Context, string? Error)> LoadAsync(HistoryChoice? choice, TextWriter error, CancellationToken cancellationToken)
    {
        var (records, unreadable) = choice is null ? (null, null) : await ReadAsync(choice.File, error, cancellationToken, choice.Defaulted);
        if (records is null || choice is null)
        {
            return (null, unreadable);
        }

        var file = choice.File;
        try
        {
            var tunes = await new SqliteTuneHistory(file, TimeProvider.System).ReadAsync(null, null, int.MaxValue, cancellationToken);
            foreach (var problem in tunes.Problems)
            {
                await error.WriteLineAsync($"backupxe: {file}: {problem}");
            }

            return (new BaselineContext(records, choice.Instance, new BaselineComparisonSettings(), tunes.Records), null);
        }
        catch (HistoryStoreException exception)
        {
            return (null, $"backupxe: {file}: {exception.Message}");
        }
    }

    /// <summary>The instance named with --instance, or null.</summary>
    public string? InstanceOf(ParseResult parse) => parse.GetValue(_instance);

    /// <summary>Every stored run, imported and captured, or null when no history is named (or it cannot be read: <c>Error</c> says why).</summary>
    public async Task<(IReadOnlyList<InstanceOperation>? Records, string? Error)> ReadAsync(ParseResult parse, TextWriter error, CancellationToken cancellationToken)
        => PathOf(parse) is { } file ? await ReadAsync(file, error, cancellationToken, Defaulted(parse)) : (null, null);

    /// <summary>Every stored run of <paramref name="file"/>, or null and why it cannot be read.</summary>
    /// <param name="defaulted">The file is the daemon's, found by looking: a missing one is said with every place looked.</param>
    public static async Task<(IReadOnlyList<InstanceOperation>? Records, string? Error)> ReadAsync(string file, TextWriter error, CancellationToken cancellationToken, bool defaulted = false)
    {
        if (!File.Exists(file))
        {
            return (null, defaulted
                ? $"backupxe: no daemon history found (looked at {string.Join(", ", DaemonHistory.Candidates().Select(c => $"'{c}'"))}): name the file with --history FILE."
                : $"backupxe: no history at '{file}': the daemon writes it (History:Path); name it with --history.");
        }

        try
        {
            // Read-only, as `history` reads it: the file is never created, altered or switched to WAL.
            await SqliteHistoryStore.ForReading(file, TimeProvider.System).VerifyAsync(cancellationToken);
            var reader = new SqliteImportedHistory(file, TimeProvider.System);
            var records = await reader.ReadAsync(null, null, cancellationToken);
            if (reader.UnreadableRows > 0)
            {
                await error.WriteLineAsync($"backupxe: {file}: {reader.UnreadableRows} history rows could not be read and are left out");
            }

            return (records, null);
        }
        catch (HistoryStoreException exception)
        {
            return (null, $"backupxe: {file}: {exception.Message}");
        }
    }
}

/// <summary>The history file a verb was asked to read, whether it was found by looking, and the instance named.</summary>
/// <param name="Defaulted"><c>--history</c> without a file: a missing one is said with every place looked.</param>
internal sealed record HistoryChoice(string File, bool Defaulted, string? Instance);
