using System.Collections.Immutable;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// Groups the engine messages a client shows (SSMS's Messages tab, sqlcmd, SQL Agent job step output, and the same
/// lines inside Ola Hallengren's job output) into operations. Those lines carry no timestamps, no spid and, until the
/// completion line, no operation kind: "10 percent processed.", "Processed N pages for database 'D', file 'F' on
/// file 1.", SQL Server 2022's "Converting database ..." steps, then "BACKUP DATABASE successfully processed ..." or
/// "... is terminating abnormally." closes the operation and names its kind.
/// </summary>
/// <remarks>
/// Lines outside the vocabulary (a job's own text, "Msg 3201, Level 16 ...", row counts) are counted, not kept.
/// Memory is bounded by one operation's messages, at most <see cref="MaxMessagesPerOperation"/>.
/// </remarks>
public sealed class ClientTranscript(TraceMessageParser? parser = null)
{
    /// <summary>STATS = 1 prints 100 percent lines, and a database has at most 32,767 files: far below this.</summary>
    public const int MaxMessagesPerOperation = 40_000;

    private readonly TraceMessageParser _parser = parser ?? new TraceMessageParser();
    private readonly List<ClientMessage> _pending = [];
    private int _dropped;

    /// <summary>Set when the line just added held a value no server writes (and was skipped), else null.</summary>
    public ImplausibleValue? Rejected { get; private set; }

    /// <summary>The meaning of the line just added.</summary>
    public TraceMessage? LastMessage { get; private set; }

    /// <summary>Lines that were not engine messages of a backup or restore (job text, error headers, blank lines).</summary>
    public long IgnoredLines { get; private set; }

    /// <summary>
    /// Adds one line of client output; returns the operation it closes (a completion or failure line), else null.
    /// </summary>
    public ClientOperation? Add(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        var parsed = _parser.Parse(line).Message;
        LastMessage = parsed;
        Rejected = parsed as ImplausibleValue;
        if (Rejected is not null)
        {
            // A number SQL Server cannot write: the caller reports it at its line; nothing is computed from it.
            return null;
        }

        if (parsed is ElidedCompletion)
        {
            // A timed run of a published excerpt: its kind and database were cut, so it closes no operation
            // (Diagnosis.ExcerptRuns compares such runs).
            return null;
        }

        if (parsed is UnknownMessage || string.IsNullOrWhiteSpace(line))
        {
            IgnoredLines++;
            return null;
        }

        if (_pending.Count < MaxMessagesPerOperation)
        {
            _pending.Add(new ClientMessage(line.Trim(), parsed));
        }
        else
        {
            _dropped++;
        }

        return parsed switch
        {
            CompletionSummary summary => Close(summary.Kind, summary.Scope),
            OperationFailed { Kind: { } kind } => Close(kind, null),
            _ => null,
        };
    }

    /// <summary>
    /// True when <paramref name="line"/>, which the parser did not know, is the head of an engine message a backup or
    /// restore prints (<c>10 percent proc</c>, <c>Processed 1234 pa</c>, <c>BACKUP DATABASE successfully</c>): the last
    /// line of an output cut short, not a line of another program's.
    /// </summary>
    public static bool LooksCut(string line)
    {
        var text = line.AsSpan().Trim();
        if (text.IsEmpty)
        {
            return false;
        }

        var digits = text.IndexOfAnyExceptInRange('0', '9');
        if (digits != 0)
        {
            return digits < 0 || " percent processed.".AsSpan().StartsWith(text[digits..], StringComparison.Ordinal);
        }

        foreach (var head in EngineHeads)
        {
            if (head.AsSpan().StartsWith(text, StringComparison.Ordinal) || text.StartsWith(head, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private static readonly ImmutableArray<string> EngineHeads = ["Processed ", "BACKUP DATABASE ", "BACKUP LOG ", "RESTORE DATABASE ", "RESTORE LOG "];

    /// <summary>End of input: the messages after the last closing line, as an operation of unknown kind; null if none.</summary>
    public ClientOperation? Finish() => _pending.Count == 0 ? null : Close(null, null);

    private ClientOperation Close(OperationKind? kind, OperationScope? scope)
    {
        var database = _pending.Select(m => m.Message switch
        {
            FilePagesProcessed files => files.Database,
            DatabaseUpgrade upgrade => upgrade.Database,
            _ => null,
        }).FirstOrDefault(name => name is not null);
        var operation = new ClientOperation(kind, scope, database, [.. _pending], _dropped);
        _pending.Clear();
        _dropped = 0;
        return operation;
    }
}

/// <summary>One recognised line of client output and its meaning.</summary>
public sealed record ClientMessage(string Text, TraceMessage Message);

/// <summary>
/// One backup or restore as a client saw it. <see cref="Kind"/> is null when the output ends before its closing line.
/// </summary>
/// <param name="DroppedMessages">Messages beyond <see cref="ClientTranscript.MaxMessagesPerOperation"/>, counted only.</param>
public sealed record ClientOperation(
    OperationKind? Kind,
    OperationScope? Scope,
    string? Database,
    IReadOnlyList<ClientMessage> Messages,
    int DroppedMessages)
{
    /// <summary>"... successfully processed N pages in S seconds (R MB/sec).", when the operation completed.</summary>
    public CompletionSummary? Summary => Messages.Select(m => m.Message).OfType<CompletionSummary>().LastOrDefault();

    /// <summary>"... is terminating abnormally." and the like, when it failed.</summary>
    public OperationFailed? Failure => Messages.Select(m => m.Message).OfType<OperationFailed>().LastOrDefault();

    /// <summary>Pages per file, as the "Processed N pages" lines give them.</summary>
    public IReadOnlyList<FilePagesProcessed> Files => Messages.Select(m => m.Message).OfType<FilePagesProcessed>().ToList();

    /// <summary>SQL Server 2022+ "Converting database" and "running the upgrade step" lines.</summary>
    public IReadOnlyList<DatabaseUpgrade> Upgrades => Messages.Select(m => m.Message).OfType<DatabaseUpgrade>().ToList();

    /// <summary>The last "N percent processed." line; null when STATS printed none.</summary>
    public int? LastPercent => Messages.Select(m => m.Message).OfType<PercentReached>().LastOrDefault()?.Percent;
}
