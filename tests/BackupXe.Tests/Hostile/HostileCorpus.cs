using System.Text;
using System.Text.RegularExpressions;
using BackupXe.Tests.Cli;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// One input of the corpus as bytes, with the offsets where each of its records (an XE event, an ERRORLOG line)
/// ends, so that damage can be placed exactly on a boundary, inside a record, or at an odd byte.
/// </summary>
/// <param name="Head">Bytes before the first record (XML declaration and root start; a BOM).</param>
/// <param name="Tail">Bytes after the last record that make the input whole again (the root's end tag).</param>
internal sealed record CorpusInput(string Name, string FileName, byte[] Bytes, IReadOnlyList<int> RecordEnds, byte[] Head, byte[] Tail)
{
    public int Records => RecordEnds.Count;

    /// <summary>The first <paramref name="records"/> records, closed properly: what an undamaged shorter capture holds.</summary>
    public byte[] Clean(int records)
    {
        var end = records == 0 ? Head.Length : RecordEnds[records - 1];
        return [.. Bytes.AsSpan(0, end), .. Tail];
    }

    /// <summary>Everything before <paramref name="offset"/>, as a capture cut by a full disk or a copy stopped midway.</summary>
    public byte[] CutAt(int offset) => Bytes.AsSpan(0, offset).ToArray();

    /// <summary>How many records end at or before <paramref name="offset"/>.</summary>
    public int RecordsBefore(int offset)
    {
        var count = 0;
        while (count < RecordEnds.Count && RecordEnds[count] <= offset)
        {
            count++;
        }

        return count;
    }
}

/// <summary>The corpus's sources: the bundled samples and the real fixtures, in their own encodings.</summary>
internal static partial class HostileCorpus
{
    private static readonly Lazy<CorpusInput> XeTwoBackups = new(BuildXeTwoBackups);

    /// <summary>
    /// Two backups in XE XML built from samples/buffer-starved-backup.xml: its progress trace and its first waits,
    /// then the same events an hour later for another database and session. Each backup is complete, so damage
    /// in the second must never cost the first.
    /// </summary>
    public static CorpusInput XeXml => XeTwoBackups.Value;

    /// <summary>samples/log-zeroing-restore.log: a raw UTF-16LE ERRORLOG with CRLF lines.</summary>
    public static CorpusInput RestoreErrorlog => Lines("log-zeroing-restore", "restore.log", File.ReadAllBytes(CliRun.Sample("log-zeroing-restore.log")), Encoding.Unicode);

    /// <summary>The real trace flag 3014 fixture (SQL Server 2014, UTF-16LE).</summary>
    public static CorpusInput BackupErrorlog => Lines(
        "tf3014-backup-sql2014",
        "tf3014.log",
        File.ReadAllBytes(Path.Combine(AppContext.BaseDirectory, "Fixtures", "errorlog", "tf3014-backup-sql2014.log")),
        Encoding.Unicode);

    public static IEnumerable<CorpusInput> All => [XeXml, RestoreErrorlog, BackupErrorlog];

    [GeneratedRegex(@"  <event name=""(?<name>[a-z_]+)"".*?</event>\r?\n", RegexOptions.Singleline)]
    private static partial Regex EventElement();

    private static CorpusInput BuildXeTwoBackups()
    {
        var sample = File.ReadAllText(CliRun.Sample("buffer-starved-backup.xml"), Encoding.UTF8);
        var kept = new StringBuilder();
        var waits = 0;
        foreach (Match match in EventElement().Matches(sample))
        {
            if (match.Groups["name"].Value == "backup_restore_progress_trace" || waits++ < 20)
            {
                kept.Append(match.Value);
            }
        }

        var first = kept.ToString();

        // The sample runs from 01:30:00 to 01:30:12 on session 61: an hour later, on session 62, for SalesDB2.
        var second = first
            .Replace("T01:30:", "T02:30:", StringComparison.Ordinal)
            .Replace("<value>61</value>", "<value>62</value>", StringComparison.Ordinal)
            .Replace("CDATA[SalesDB]]", "CDATA[SalesDB2]]", StringComparison.Ordinal);

        const string head = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<events>\n";
        const string tail = "</events>\n";
        var headBytes = Encoding.UTF8.GetBytes(head);
        var bytes = new List<byte>(headBytes);
        var ends = new List<int>();
        foreach (Match match in EventElement().Matches(first + second))
        {
            bytes.AddRange(Encoding.UTF8.GetBytes(match.Value));
            ends.Add(bytes.Count);
        }

        var tailBytes = Encoding.UTF8.GetBytes(tail);
        bytes.AddRange(tailBytes);
        return new CorpusInput("xe-two-backups", "two-backups.xml", [.. bytes], ends, headBytes, tailBytes);
    }

    private static CorpusInput Lines(string name, string fileName, byte[] bytes, Encoding encoding)
    {
        var preamble = encoding.GetPreamble();
        var start = bytes.AsSpan().StartsWith(preamble) ? preamble.Length : 0;
        var newline = encoding.GetBytes("\n");
        var ends = new List<int>();
        for (var i = start; i + newline.Length <= bytes.Length; i += newline.Length)
        {
            if (bytes.AsSpan(i, newline.Length).SequenceEqual(newline))
            {
                ends.Add(i + newline.Length);
            }
        }

        if (ends.Count == 0 || ends[^1] != bytes.Length)
        {
            ends.Add(bytes.Length);
        }

        return new CorpusInput(name, fileName, bytes, ends, bytes[..start], []);
    }
}
