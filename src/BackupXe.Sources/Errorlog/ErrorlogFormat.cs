using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// A SQL Server ERRORLOG, raw or exported: recognised by lines that open with the server's timestamp, judged
/// over many lines so that one damaged line near the top does not refuse the whole log.
/// </summary>
internal sealed class ErrorlogFormat : IInputFormat
{
    // Enough lines to see past a startup banner's continuation lines and a damaged first line.
    private const int LinesJudged = 400;

    public string Name => "errorlog";

    public string Description => "SQL Server ERRORLOG with trace flags 3004/3014/3213/3605: the raw UTF-16 file, a sp_readerrorlog / SSMS export, or dbatools' Get-DbaErrorLog as a table";

    public string WhenDamaged => "A line that cannot be decoded or read is reported with its line number and skipped; the lines around it are analysed.";

    public FormatMatch Recognise(InputPrefix prefix)
    {
        var text = prefix.Text;
        int nonEmpty = 0, timestamped = 0, binary = 0;
        bool? firstLineTimestamped = null;
        foreach (var line in text.Lines(LinesJudged))
        {
            if (string.IsNullOrWhiteSpace(line))
            {
                continue;
            }

            nonEmpty++;
            var opens = ErrorlogLine.StartsWithTimestamp(line)
                || (Core.Parsing.LogLinePrefix.Length(line) is > 0 and var collected && ErrorlogLine.StartsWithTimestamp(line.AsSpan(collected)))
                || (firstLineTimestamped is null && (line.StartsWith("LogDate", StringComparison.OrdinalIgnoreCase) || ErrorlogTableRow.IsHeading(line)))
                || ErrorlogTableRow.TryParse(line, new ErrorlogTableRow.DateOrder(), out _, out _, out _);
            firstLineTimestamped ??= opens;
            if (opens)
            {
                timestamped++;
            }
            else if (ErrorlogLine.LooksBinary(line))
            {
                binary++;
            }
        }

        // Text decoded with the wrong encoding, or binary data, shows control characters on most lines.
        if (binary * 4 > nonEmpty)
        {
            return FormatMatch.None;
        }

        if (timestamped == 0)
        {
            return WithoutClocks(text);
        }

        // The majority of the content decides, never the first line alone: a transcript that quotes one ERRORLOG line
        // at its top is still a transcript.
        if (firstLineTimestamped == true && timestamped * 2 >= nonEmpty)
        {
            return new FormatMatch(MatchStrength.Strong, text.Encoding);
        }

        // The first line is damaged or foreign: still a log when timestamps open a good share of the lines.
        return timestamped * 4 >= nonEmpty ? new FormatMatch(MatchStrength.Weak, text.Encoding) : FormatMatch.None;
    }

    // ERRORLOG messages quoted without their date and process columns (a blog, a forum, a support case): a log still,
    // without clocks, when most of its messages are the engine's and more are the ERRORLOG's own than a client's
    // (an error's header, a history record, 3041, a device failure against Msg headers, percent lines and 3013).
    private static FormatMatch WithoutClocks(TextPrefix text)
    {
        var messages = new BareMessages();
        int total = 0, engine = 0, errorlog = 0, client = 0;
        MessageSide? first = null;
        var number = 0;
        foreach (var line in text.Lines(LinesJudged))
        {
            foreach (var message in messages.Add(line, ++number))
            {
                Count(message);
            }
        }

        foreach (var message in messages.Finish())
        {
            Count(message);
        }

        if (errorlog == 0 || errorlog <= client || engine * 2 < total)
        {
            return FormatMatch.None;
        }

        return new FormatMatch(first == MessageSide.Errorlog ? MatchStrength.Strong : MatchStrength.Weak, text.Encoding);

        void Count(BareMessage message)
        {
            total++;
            first ??= message.Side;
            engine += message.IsEngine ? 1 : 0;
            errorlog += message.Side == MessageSide.Errorlog ? 1 : 0;
            client += message.Side == MessageSide.Client ? 1 : 0;
        }
    }

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
        => new ErrorlogEventSource(name, OneShot.Of(content), match.TextEncoding);
}
