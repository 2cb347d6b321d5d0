using System.Text.RegularExpressions;

namespace BackupXe.Sources.ClientOutput;

/// <summary>
/// SQL Agent's " [SQLSTATE 01000]" suffix split by a fold at a width ("... (1.953 MB/sec). [SQL" then "STATE 01000]"):
/// the two lines are one message, and read apart the head's figures look damaged and the tail is no message at all.
/// Joined only where the join makes the suffix whole, never by a width guessed from line lengths.
/// </summary>
internal static partial class SqlStateFold
{
    /// <summary>True when <paramref name="line"/> ends inside a SQLSTATE suffix: a head that the next line may finish.</summary>
    public static bool EndsInside(string line) => CutSuffix().IsMatch(line);

    /// <summary>The head and the next line as one line, when together they hold the whole suffix the head began; else null.</summary>
    public static string? Join(string head, string next)
    {
        var start = head.LastIndexOf('[');
        if (start < 0)
        {
            return null;
        }

        var joined = head + next;
        return WholeSuffix().Match(joined, start) is { Success: true } whole && whole.Index == start ? joined : null;
    }

    [GeneratedRegex(@"\[(?:S(?:Q(?:L(?:S(?:T(?:A(?:T(?:E(?: \w{0,5})?)?)?)?)?)?)?)?)?\s*$", RegexOptions.CultureInvariant)]
    private static partial Regex CutSuffix();

    [GeneratedRegex(@"\G\[SQLSTATE \w{5}\]", RegexOptions.CultureInvariant)]
    private static partial Regex WholeSuffix();
}
