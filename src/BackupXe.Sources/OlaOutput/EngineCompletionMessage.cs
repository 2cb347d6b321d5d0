using System.Globalization;
using System.Text.RegularExpressions;

namespace BackupXe.Sources.OlaOutput;

/// <summary>
/// The engine's completion line as a client sees it, e.g. "BACKUP DATABASE successfully processed 24266 pages
/// in 0.542 seconds (349.763 MB/sec)." (fixtures/realworld S13). The only engine message the job output reader
/// interprets; kept on its own so the shared client-output parser can replace it.
/// </summary>
internal static partial class EngineCompletionMessage
{
    // A page is 8 KB; the engine's MB is 1,048,576 bytes (domain.md).
    private const long PageBytes = 8192;

    public static bool TryParse(string line, out long bytes, out double seconds)
    {
        bytes = 0;
        seconds = 0;
        var match = Completion().Match(line);
        if (!match.Success
            || !long.TryParse(match.Groups["pages"].ValueSpan, NumberStyles.None, CultureInfo.InvariantCulture, out var pages)
            || !double.TryParse(match.Groups["seconds"].ValueSpan, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out seconds)
            || pages > long.MaxValue / PageBytes
            || seconds > 366 * 86400.0)
        {
            return false;
        }

        bytes = pages * PageBytes;
        return true;
    }

    [GeneratedRegex(@"^(?:BACKUP|RESTORE)\b.*?\bsuccessfully processed (?<pages>\d{1,18}) pages in (?<seconds>\d{1,12}(?:\.\d{1,9})?) seconds", RegexOptions.CultureInvariant)]
    private static partial Regex Completion();
}
