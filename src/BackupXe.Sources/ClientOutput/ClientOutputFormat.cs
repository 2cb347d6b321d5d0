using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.ClientOutput;

/// <summary>
/// What SSMS, sqlcmd and SQL Agent job steps show for a backup or restore: recognised by the engine's client
/// messages ("N percent processed.", "Processed N pages for database ...", "... successfully processed ..."),
/// which no other format writes on a line of their own.
/// </summary>
internal sealed class ClientOutputFormat : IInputFormat
{
    private const int LinesJudged = 400;

    public string Name => "client-output";

    public string Description => "What SSMS, sqlcmd and SQL Agent job steps show: STATS percent lines, per-file pages, the completion line and trace flag 3213's buffer block, even on its own";

    public string WhenDamaged => "A line that cannot be decoded is reported with its line number and skipped; every operation closed by a completion line is analysed.";

    public FormatMatch Recognise(InputPrefix prefix)
    {
        var parser = new TraceMessageParser();
        int nonEmpty = 0, client = 0, closing = 0;
        bool? firstIsClient = null;
        string? unjudged = null;
        foreach (var read in AgentFold.Join(prefix.Text.Lines(LinesJudged)))
        {
            // One damaged message of an Agent step stored on one line leaves the step's other messages to judge.
            var line = ErrorlogLine.LooksBinary(read) && DamagedMessages.Without(read) is { } rest ? rest.Kept : read;
            if (string.IsNullOrWhiteSpace(line))
            {
                unjudged = null;
                continue;
            }

            nonEmpty++;
            if (ErrorlogLine.StartsWithTimestamp(line) || ErrorlogLine.LooksBinary(line))
            {
                firstIsClient ??= false;
                continue;
            }

            var (isClient, closes) = Judge(parser, line);

            // A message folded at a width is judged whole: the line before and this one together.
            if (!isClient && unjudged is not null)
            {
                (isClient, closes) = Judge(parser, unjudged + line);
            }

            unjudged = isClient ? null : line;
            firstIsClient ??= isClient;
            client += isClient ? 1 : 0;
            closing += closes;
        }

        if (client == 0)
        {
            return FormatMatch.None;
        }

        // A job step's output opens with its own text; the engine's lines still give it away.
        return firstIsClient == true ? new FormatMatch(MatchStrength.Strong, prefix.Text.Encoding)
            : closing > 0 || client * 4 >= nonEmpty ? new FormatMatch(MatchStrength.Weak, prefix.Text.Encoding)
            : FormatMatch.None;
    }

    // A PowerShell or SQL Agent transcript: the engine's messages inside its prefixes and suffixes decide.
    private static (bool IsClient, int Closing) Judge(TraceMessageParser parser, string line)
    {
        var isClient = false;
        var closing = 0;
        foreach (var part in ClientLine.IsWrapped(line) ? ClientLine.Unwrap(line) : [line])
        {
            var message = parser.Parse(part).Message;

            // An engine line carrying an impossible number is still client output, damaged: the reader reports it.
            isClient |= message is PercentReached or FilePagesProcessed or CompletionSummary or ElidedCompletion or DatabaseUpgrade or ImplausibleValue
                or SnapshotStep or BufferParameterLine or BufferConfigurationHeader or OperationFailed { Kind: not null }
                || IsBackupRestoreError(message);
            // A failed command is closed by its failure line as a completed one by its completion line: a script's or a
            // job's own text around one failed command's messages is still that command's output.
            // An error that stopped the work before any started (924) ends it as well: a job's own header above it is still its output.
            closing += message is CompletionSummary or ElidedCompletion or OperationFailed { Kind: not null } || IsClosingError(message) || IsPrevention(message) ? 1 : 0;
        }

        return (isClient, closing);
    }

    // "Msg 4208, Level 16, State 1, Line 1": an error of the catalog's backup and restore failures is a failed command's
    // output even when nothing else was printed, and so is one that stopped the work before any started ("Msg 924",
    // realworld4 V28) (docs/message-catalog.md).
    private static bool IsBackupRestoreError(TraceMessage message)
        => message is EngineError error && EngineMessageCatalog.StopsTheWork(error.Number);

    // "Msg 924, Level 14, State 1, Procedure DatabaseBackup, Line 2894": the database could not be used; no backup started.
    private static bool IsPrevention(TraceMessage message)
        => message is EngineError error && EngineMessageCatalog.PreventsOperation(error.Number);

    // Agent's "Msg 3013, Sev 16, State 1, Line 1 : BACKUP DATABASE is terminating abnormally.": the ending with its header.
    // SQL Server's "The backup or restore was aborted." (3204) ends a stopped command the same way.
    private static bool IsClosingError(TraceMessage message)
        => message is EngineError { Number: EngineError.TerminatingAbnormally or EngineMessageCatalog.Aborted, Text: not null };

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
        => new ClientOutputEventSource(name, OneShot.Of(content), match.TextEncoding);
}
