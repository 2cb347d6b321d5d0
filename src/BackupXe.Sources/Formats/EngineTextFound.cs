using System.Globalization;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.Formats;

/// <summary>
/// Why an input no format took is still SQL Server's text, when it is: engine messages too few or too scattered to tell
/// an operation from (a tool's own lines around one percent line), or a server error in a driver's record whose wording
/// the catalog does not hold. Such an input is "cannot tell", with the line that shows it, never "not a recognised format".
/// </summary>
internal static class EngineTextFound
{
    private const int LinesJudged = 400;

    // The record a .NET driver makes of a server error: its text follows.
    private static readonly System.Collections.Immutable.ImmutableArray<string> DriverRecords = ["SqlError: ", "SqlException: "];

    /// <summary>The sentence for the input, or null when nothing in it is SQL Server's.</summary>
    public static string? Describe(TextPrefix text)
    {
        var messages = new BareMessages();
        var number = 0;
        foreach (var line in text.Lines(LinesJudged))
        {
            number++;
            foreach (var message in messages.Add(line, number))
            {
                if (message.IsEngine)
                {
                    return Engine(message);
                }
            }
        }

        foreach (var message in messages.Finish())
        {
            if (message.IsEngine)
            {
                return Engine(message);
            }
        }

        number = 0;
        foreach (var line in text.Lines(LinesJudged))
        {
            number++;
            foreach (var record in DriverRecords)
            {
                if (line.Contains(record, StringComparison.Ordinal))
                {
                    return string.Create(CultureInfo.InvariantCulture,
                        $"cannot tell: line {number} holds a SQL Server error in the driver's record ({record.TrimEnd(' ', ':')}), in wording the message catalog does not hold (it holds SQL Server's English text), and nothing else in the input is a backup or restore message");
                }
            }
        }

        return null;
    }

    private static string Engine(BareMessage message)
        => string.Create(CultureInfo.InvariantCulture,
            $"cannot tell: SQL Server's messages are in it (line {message.Line}: '{Shown(message.Text)}'), but too few to tell a backup or restore from them, its kind or how it ended");

    private static string Shown(string text) => text.Length <= 80 ? text : $"{text[..80]}...";
}
