using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using BackupXe.Core.Reporting;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Which operations a listing shows: <c>--database</c> (any of several, case-insensitive as SQL Server compares
/// names by default), <c>--since</c> and <c>--until</c> (an operation's start, in the time its input gives). Spelled
/// and meant the same in every verb that lists operations.
/// </summary>
internal sealed record OperationFilter(IReadOnlySet<string> Databases, DateTime? Since, DateTime? Until)
{
    public bool IsEmpty => Databases.Count == 0 && Since is null && Until is null;

    public bool Matches(OperationReport operation) => MatchesDatabase(operation.Database) && MatchesStart(operation.Start);

    public bool MatchesDatabase(string? database) => Databases.Count == 0 || (database is not null && Databases.Contains(database));

    /// <summary>An operation whose start is unknown is left out as soon as a time bound is given: it cannot be placed.</summary>
    public bool MatchesStart(DateTime? start) =>
        (Since is null && Until is null) || (start is { } at && (Since is not { } since || at >= since) && (Until is not { } until || at <= until));

    /// <summary>The three options, added to a command and read back as one filter.</summary>
    public sealed class Options
    {
        public Option<string[]> Database { get; } = DatabaseOption();

        public Option<string?> Since { get; } = TimeOption("--since", "Only operations that started at or after this: 30d, 12h, or a date (2024-05-01, 2024-05-01 13:00), in the time the input gives.");

        public Option<string?> Until { get; } = TimeOption("--until", "Only operations that started at or before this: 30d, 12h, or a date (2024-05-01, 2024-05-01 13:00).");

        public void AddTo(Command command)
        {
            command.Options.Add(Database);
            command.Options.Add(Since);
            command.Options.Add(Until);
        }

        public OperationFilter Read(ParseResult parse, DateTime now) => new(
            Names(parse.GetValue(Database)),
            parse.GetValue(Since) is { } since ? TimePoint.Parse(since, now) : null,
            parse.GetValue(Until) is { } until ? TimePoint.Parse(until, now, allowFuture: true) : null);
    }

    /// <summary>Names given by repeating the option or separating them with commas.</summary>
    public static HashSet<string> Names(IEnumerable<string>? values) =>
        new((values ?? []).SelectMany(v => v.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)), StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// <c>--database</c>: one name a token, so a file named after it is never swallowed as a second name; a value that
    /// names an existing file is refused, since it is a file argument typed in the wrong place.
    /// </summary>
    public static Option<string[]> DatabaseOption()
    {
        var option = new Option<string[]>("--database", "-d") { Description = "Only these databases (repeat the option, or separate names with commas)." };
        option.Validators.Add(result =>
        {
            foreach (var token in result.Tokens)
            {
                if (File.Exists(token.Value))
                {
                    result.AddError($"--database '{token.Value}' is a file: name files as arguments, databases after --database.");
                }
            }
        });
        return option;
    }

    private static Option<string?> TimeOption(string name, string description)
    {
        var option = new Option<string?>(name) { Description = description };
        option.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string?>() is { } text && TimePoint.Parse(text, DateTime.Now, allowFuture: name == "--until") is null)
            {
                result.AddError($"{name} '{text}': expected a number of days or hours (30d, 12h) or a date (2024-05-01, 2024-05-01 13:00).");
            }
        });
        return option;
    }
}

/// <summary>"30d", "12h" or "2024-05-01 [HH:mm[:ss]]": a point in time, range-checked (at most 100 years back).</summary>
internal static class TimePoint
{
    public static DateTime? Parse(string text, DateTime now, bool allowFuture = false)
    {
        text = text.Trim();
        if (text.Length >= 2 && (text[^1] is 'd' or 'h')
            && int.TryParse(text.AsSpan(0, text.Length - 1), NumberStyles.None, CultureInfo.InvariantCulture, out var count)
            && count > 0 && count <= 36_500)
        {
            return text[^1] == 'd' ? now.AddDays(-count) : now.AddHours(-count);
        }

        return DateTime.TryParseExact(text, ["yyyy-MM-dd", "yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-ddTHH:mm:ss"], CultureInfo.InvariantCulture, DateTimeStyles.None, out var date)
               && date.Year >= 1753 && (allowFuture || date <= now)
            ? date
            : null;
    }
}
