using System.Text.RegularExpressions;
using BackupXe.Sources.Errorlog;

namespace BackupXe.Sources.ClientOutput;

/// <summary>
/// SQL Agent text folded at a width by a copy, joined back into the lines Agent wrote (docs/input-formats.md, client
/// output). Agent ends every message with " [SQLSTATE xxxxx]", maybe followed by "(Message N)" or "(Error N)", and
/// job history runs a whole step onto one line that ends with the step's outcome ("The step succeeded."). So a line of
/// Agent text is unfinished while it ends inside a suffix, or while text that is not the step's outcome follows its last
/// suffix: the next line is the rest of it, unless that line starts a record of its own (a blank line, another step, a
/// timestamped line). Joined only where the text says so, never by a width guessed from line lengths; a line with no
/// Agent suffix in it is left to the transcript's own fold rule.
/// </summary>
internal static partial class AgentFold
{
    /// <summary>
    /// The most a joined line gathers: job history keeps a step's messages in 4,000 characters
    /// (sysjobhistory.message); past this the lines are read apart again.
    /// </summary>
    public const int MaxJoinedChars = 16_384;

    private const string ExecutedAs = "Executed as user: ";

    /// <summary>The lines with every folded Agent line joined back, each joined one carrying what <paramref name="join"/> makes of its pieces.</summary>
    public static IEnumerable<T> Join<T>(IEnumerable<T> lines, Func<T, string> text, Func<T, T, T> join)
    {
        var holding = false;
        T held = default!;
        foreach (var line in lines)
        {
            if (holding)
            {
                if (Continues(text(held), text(line)))
                {
                    held = join(held, line);
                    if (Unfinished(text(held)))
                    {
                        continue;
                    }

                    holding = false;
                    yield return held;
                    continue;
                }

                holding = false;
                yield return held;
            }

            if (Unfinished(text(line)))
            {
                held = line;
                holding = true;
                continue;
            }

            yield return line;
        }

        if (holding)
        {
            yield return held;
        }
    }

    /// <summary>The lines as strings, folded Agent lines joined.</summary>
    public static IEnumerable<string> Join(IEnumerable<string> lines) => Join(lines, l => l, (head, next) => head + next);

    /// <summary>True when <paramref name="line"/> is Agent text that the next line of a fold may carry on.</summary>
    public static bool Unfinished(string line) => CutSuffix().IsMatch(line) || GoesOn(line) || BareSuffix().IsMatch(line);

    // A step's line until its outcome; elsewhere, text after the last suffix: the rest of a message, or more messages.
    private static bool GoesOn(string line)
    {
        var suffix = line.LastIndexOf("[SQLSTATE ", StringComparison.Ordinal);
        var tail = suffix < 0 ? null : Tail().Match(line, suffix);
        var rest = tail is { Success: true } && tail.Index == suffix ? line.AsSpan(tail.Index + tail.Length).Trim() : line.AsSpan();
        if (line.StartsWith(ExecutedAs, StringComparison.Ordinal))
        {
            // "Executed as user: NT SERVICE\SQLSERVERAGENT. 10 percent pro": job history's step ends at its outcome.
            return !IsOutcome(rest);
        }

        // No suffix, or "[SQL" in some other text: not Agent's.
        return suffix >= 0 && tail!.Success && tail.Index == suffix && !rest.IsEmpty && !IsOutcome(rest);
    }

    // The next line carries the held one on unless it starts a record of its own. A cut suffix only when the two make it
    // whole; a suffix without its message number only when the next line starts with that number.
    private static bool Continues(string held, string next)
    {
        if (StartsRecord(next) || held.Length + next.Length > MaxJoinedChars)
        {
            return false;
        }

        if (GoesOn(held))
        {
            return true;
        }

        if (CutSuffix().Match(held) is { Success: true } cut)
        {
            return WholeSuffix().Match(held + next, cut.Index) is { Success: true } whole && whole.Index == cut.Index;
        }

        return MessageNumber().IsMatch(next);
    }

    // The step's outcome ends job history's line; Agent writes it last, without a suffix.
    private static bool IsOutcome(ReadOnlySpan<char> text)
        => text.Contains("The step ", StringComparison.Ordinal) && text.TrimEnd().EndsWith('.');

    private static bool StartsRecord(string line)
        => string.IsNullOrWhiteSpace(line) || line.StartsWith(ExecutedAs, StringComparison.Ordinal) || ErrorlogLine.StartsWithTimestamp(line);

    // The suffix cut anywhere from its bracket to its code: "[SQL", "[SQLSTATE 010".
    [GeneratedRegex(@"\[(?:S(?:Q(?:L(?:S(?:T(?:A(?:T(?:E(?: \w{0,5})?)?)?)?)?)?)?)?)?\s*$", RegexOptions.CultureInvariant)]
    private static partial Regex CutSuffix();

    [GeneratedRegex(@"\G\[SQLSTATE \w{5}\]", RegexOptions.CultureInvariant)]
    private static partial Regex WholeSuffix();

    // A line that ends at a whole suffix with no message number after it: a fold may have put the number on the next line.
    [GeneratedRegex(@"\[SQLSTATE \w{5}\]\s*$", RegexOptions.CultureInvariant)]
    private static partial Regex BareSuffix();

    [GeneratedRegex(@"^\s*\((?:M(?:e(?:s(?:s(?:a(?:g(?:e)?)?)?)?)?)?|E(?:r(?:r(?:o(?:r)?)?)?)?)(?:\s|\d|\)|$)", RegexOptions.CultureInvariant)]
    private static partial Regex MessageNumber();

    // A whole suffix with its message number, and the part of a number a fold may have cut ("(Messa").
    [GeneratedRegex(@"\G\[SQLSTATE \w{5}\]\s*(?:\((?:Message|Error) \d+\))?\s*\.?", RegexOptions.CultureInvariant)]
    private static partial Regex Tail();
}
