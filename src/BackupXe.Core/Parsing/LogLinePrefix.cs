using System.Collections.Immutable;

namespace BackupXe.Core.Parsing;

/// <summary>
/// The prefix a log collector writes before each line it passes on: <c>docker logs -t</c> writes the time it read the
/// line (RFC 3339 with nanoseconds and a Z: <c>2024-05-01T10:00:00.123456789Z </c>), journald's short form writes
/// <c>May 01 10:00:00 host sqlservr[1234]: </c>. SQL Server on Linux sends its ERRORLOG to standard output, so both
/// carry its lines, and a container's entry script's sqlcmd output beside them.
/// </summary>
public static class LogLinePrefix
{
    private static readonly ImmutableArray<string> Months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

    /// <summary>How many characters of <paramref name="line"/> the collector's prefix takes; 0 when it has none.</summary>
    public static int Length(ReadOnlySpan<char> line)
    {
        if (line.Length < 21)
        {
            return 0;
        }

        if (char.IsAsciiDigit(line[0]))
        {
            return DockerLength(line);
        }

        return char.IsAsciiLetterUpper(line[0]) ? JournalLength(line) : 0;
    }

    // "2024-05-01T10:00:00.123456789Z ": a date, a 'T', a time, an optional fraction, a zone (Z or +hh:mm), one space.
    private static int DockerLength(ReadOnlySpan<char> line)
    {
        if (line[4] != '-' || line[7] != '-' || line[10] != 'T' || line[13] != ':' || line[16] != ':' || !Digits(line, 0, 4)
            || !Digits(line, 5, 2) || !Digits(line, 8, 2) || !Digits(line, 11, 2) || !Digits(line, 14, 2) || !Digits(line, 17, 2))
        {
            return 0;
        }

        var i = 19;
        if (i < line.Length && line[i] == '.')
        {
            i++;
            while (i < line.Length && char.IsAsciiDigit(line[i]))
            {
                i++;
            }
        }

        if (i < line.Length && line[i] == 'Z')
        {
            i++;
        }
        else if (i + 6 <= line.Length && line[i] is '+' or '-' && line[i + 3] == ':')
        {
            i += 6;
        }
        else
        {
            return 0;
        }

        return i < line.Length && line[i] == ' ' ? i + 1 : 0;
    }

    // "May 01 10:00:00 host sqlservr[1234]: ": a month, a day, a time, a host, the process and its id, then ": ".
    private static int JournalLength(ReadOnlySpan<char> line)
    {
        var month = false;
        foreach (var name in Months)
        {
            month |= line.StartsWith(name, StringComparison.Ordinal);
        }

        if (!month || line[3] != ' ')
        {
            return 0;
        }

        var colon = line.IndexOf("]: ", StringComparison.Ordinal);
        var open = colon < 0 ? -1 : line[..colon].LastIndexOf('[');
        return colon > 15 && open > 15 && line[(open + 1)..colon].IndexOfAnyExceptInRange('0', '9') < 0 ? colon + 3 : 0;
    }

    private static bool Digits(ReadOnlySpan<char> line, int start, int count)
        => line.Slice(start, count).IndexOfAnyExceptInRange('0', '9') < 0;
}
