using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources.ClientOutput;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.OlaOutput;

/// <summary>
/// Reads the output of Ola Hallengren's CommandExecute (a DatabaseBackup job's output file, or the messages of a
/// sqlcmd run), one BACKUP/RESTORE per block. CommandExecute prints, per command: "Date and time:" (whole
/// seconds), "Database context:", "Command:", optionally "Comment:", then the engine's messages, then
/// "Outcome: Succeeded | Failed | Not Executed", "Duration: [d.]hh:mm:ss", "Date and time:" and a line
/// holding a TAB. Versions before 2014 printed "DateTime:" and put the end lines in one message; SQL Agent's
/// T-SQL subsystem appends " [SQLSTATE 01000]" to each message and may run several onto one line.
/// The engine's messages inside a block go through the shared <see cref="ClientTranscript"/>, the parser of all
/// client output, so the completion line, per-file pages and failure lines read the same here as anywhere else.
/// Streams: memory holds one block.
/// </summary>
internal sealed partial class OlaJobOutputReader
{
    // A name or path of a few lines is damage enough; beyond this the rest is read as messages again.
    private const int MaxContinuationLines = 16;

    private readonly string _name;
    private readonly List<InputProblem> _problems = [];

    // One parser per input, shared by its blocks (it caches per stream, so it is not shared across readers).
    private readonly TraceMessageParser _parser = new();

    public OlaJobOutputReader(string name) => _name = name;

    /// <summary>Damaged lines met so far, each located ("line L").</summary>
    public IReadOnlyList<InputProblem> Problems => _problems;

    /// <summary>Commands that were not executed (@Execute = 'N') or were not BACKUP/RESTORE, skipped.</summary>
    public int SkippedCommands { get; private set; }

    /// <summary>What the output shows besides operations: each RESTORE VERIFYONLY as the verification it is, located ("line L").</summary>
    public IReadOnlyList<InputProblem> Findings => _findings;

    /// <summary>
    /// Each run of the job (from a "Server:" header of DatabaseBackup's to the next) with its time by kind of command;
    /// none in an excerpt without the header, where where one run starts cannot be told.
    /// </summary>
    public IReadOnlyList<OlaJobTime> Executions => _executions;

    private readonly List<OlaJobTime> _executions = [];

    // The run the commands now read belong to; none before DatabaseBackup's first header.
    private OlaJobTime? CurrentExecution => _executions.Count > 0 ? _executions[^1] : null;

    private readonly List<InputProblem> _findings = [];

    /// <summary>The server DatabaseBackup names in its header ("Server: name"), when the output has that header.</summary>
    public string? Server { get; private set; }

    /// <summary>The server's version from the header's "Version:" line (SERVERPROPERTY('ProductVersion')), when the output has it.</summary>
    public Core.Events.ServerVersion? ServerVersion { get; private set; }

    /// <summary>True when the prefix holds a CommandExecute block: a "Date and time:" line followed within three lines by "Database context:" or "Command:".</summary>
    public static bool Recognise(TextPrefix prefix)
    {
        var lines = AgentFold.Join(prefix.Lines(2000)).SelectMany(Messages).ToList();
        for (var i = 0; i < lines.Count; i++)
        {
            if (Timestamp(lines[i]) is not null)
            {
                for (var j = i + 1; j < Math.Min(lines.Count, i + 4); j++)
                {
                    if (lines[j].StartsWith("Database context: ", StringComparison.Ordinal) || lines[j].StartsWith("Command: ", StringComparison.Ordinal))
                    {
                        return true;
                    }
                }
            }
        }

        return false;
    }

    public IEnumerable<HistoryOperation> Read(TextReader reader)
        => ReadCommands(reader).Where(command => command.Operation is not null).Select(command => command.Operation!);

    /// <summary>Each command as the history keeps it, with the engine's messages the output printed for it.</summary>
    public IEnumerable<OlaCommand> ReadCommands(TextReader reader)
    {
        DateTime? lastTimestamp = null;

        // The command after a rejected start line is skipped without a second problem for the same damage.
        var startRejected = false;
        var stampLine = 0;
        var afterStamp = false;
        Block? block = null;

        // An excerpt that starts inside a command, after its "Command:" line: the engine's messages up to its "Outcome:"
        // line are still that command's, read without the command (its options and its start are cut).
        var cut = new ClientTranscript(_parser);
        var beforeFirstCommand = true;
        var cutProblem = false;

        foreach (var (lineNumber, rawLine, truncated) in Lines(reader))
        {
            // A command cut inside a quote goes on over the next line whatever that line holds (a date, a blank), so the
            // raw line is taken before it is read as messages.
            if (block is { CommandOpen: true, CommandCut: true } && block.QuotedLines < MaxContinuationLines)
            {
                block.QuotedLines++;
                CarryOn(block, rawLine);
                continue;
            }

            foreach (var line in Messages(rawLine))
            {
                if (Timestamp(line) is { } stamp)
                {
                    if (stamp.Value is null)
                    {
                        Problem(lineNumber, $"unreadable date and time '{stamp.Text}'");
                        RejectStart(block, ref lastTimestamp, ref startRejected);
                    }
                    else if (!ServerRanges.IsTimestamp(stamp.Value.Value))
                    {
                        // 0001-01-01 or 9999-12-31 is no clock's reading, and a day either side of it is no date at all.
                        Problem(lineNumber, $"date and time '{stamp.Text}' outside the years {ServerRanges.EarliestYear}-{ServerRanges.LatestYear} that a server's clock shows");
                        RejectStart(block, ref lastTimestamp, ref startRejected);
                    }
                    else if (block is { Outcome: not null, End: null })
                    {
                        block.End = stamp.Value;
                    }
                    else
                    {
                        lastTimestamp = stamp.Value;
                        startRejected = false;
                        stampLine = lineNumber;
                        afterStamp = false;
                    }

                    continue;
                }

                // The job's own last 'Date and time:' line ends the output; one followed by a command's first lines does not.
                afterStamp |= lastTimestamp is not null && line.Trim().Length > 0 && !line.StartsWith("Command: ", StringComparison.Ordinal);

                if (line.StartsWith("Command: ", StringComparison.Ordinal))
                {
                    if (block is { Outcome: null })
                    {
                        Problem(block.Line, "the next command begins before this one's 'Outcome:' line: its end was not printed; reported as incomplete");
                    }

                    if (Finish(block) is { } previous)
                    {
                        yield return previous;
                    }

                    if (beforeFirstCommand)
                    {
                        beforeFirstCommand = false;
                        foreach (var closed in cut.Finish())
                        {
                            if (CutCommand(closed) is { } headless)
                            {
                                yield return headless;
                            }
                        }
                    }

                    // An excerpt of job history often starts mid-command: its engine messages still make the operation.
                    block = new Block(lastTimestamp, lineNumber, line["Command: ".Length..], _parser);
                    // A line cut at the bound ends inside its quote for that reason, already said: its rest is not on the next line.
                    block.CommandCut = !truncated && CommandContinuation.InsideQuote(block.Command);
                    block.CutAtBound = truncated;
                    if (lastTimestamp is null && !startRejected)
                    {
                        Problem(lineNumber, "a command without the 'Date and time:' line before it: its start on the client's clock is unknown "
                            + "(analyze reads its engine messages; history import skips it)");
                    }

                    lastTimestamp = null;
                    startRejected = false;
                    continue;
                }

                if (block is null && beforeFirstCommand)
                {
                    if (line.StartsWith("Outcome: ", StringComparison.Ordinal))
                    {
                        beforeFirstCommand = false;
                        foreach (var closed in cut.Finish())
                        {
                            if (CutCommand(closed) is { } headless)
                            {
                                yield return headless;
                            }
                        }

                        continue;
                    }

                    foreach (var closed in cut.Add(line))
                    {
                        if (CutCommand(closed) is { } headless)
                        {
                            yield return headless;
                        }
                    }

                    if (!cutProblem && cut.LastMessage is not (null or UnknownMessage))
                    {
                        cutProblem = true;
                        Problem(lineNumber, "the output starts inside a command, after its 'Command:' line: its engine messages are read without the command, "
                            + "so its options and its start on the client's clock are unknown (history import skips it)");
                    }
                }

                if (block is null)
                {
                    if (line.StartsWith("Server: ", StringComparison.Ordinal) && line.Length > "Server: ".Length)
                    {
                        Server ??= line["Server: ".Length..].Trim();

                        // Each run of DatabaseBackup prints this header first: its commands are one run of the job.
                        _executions.Add(new OlaJobTime(lineNumber));
                    }

                    // "Version: " is printed twice: the server's ProductVersion after "Server:", and the procedure's date later.
                    if (ServerVersion is null && line.StartsWith("Version: ", StringComparison.Ordinal))
                    {
                        ServerVersion = Core.Events.ServerVersion.FromBuild(line["Version: ".Length..], $"the job output's Version line, line {lineNumber}");
                    }

                    continue;
                }

                if (block.CommandOpen && !block.CutAtBound && CommandContinuation.Continues(block.Command, line))
                {
                    // A command printed over several lines (a wrapped copy, a job history viewer): its stripes and
                    // options are on the lines after "Command:", before the engine's first message.
                    CarryOn(block, line);
                    continue;
                }

                block.CommandOpen = false;
                if (line.StartsWith("Outcome: ", StringComparison.Ordinal))
                {
                    block.Outcome = line["Outcome: ".Length..].Trim();
                }
                else if (line.StartsWith("Duration: ", StringComparison.Ordinal))
                {
                    block.Duration = Duration(line["Duration: ".Length..].Trim());
                    if (block.Duration is null)
                    {
                        Problem(lineNumber, $"unreadable duration '{line}' (hh:mm:ss, with at most {ServerRanges.MaxDurationMs / 86_400_000} days before them)");
                    }
                }
                else if (block.Outcome is null)
                {
                    if (ErrorLine().Match(line) is { Success: true } error)
                    {
                        block.Error ??= error.Groups["text"].Value.Trim();
                    }

                    // Error lines too: the operation's failure reason is its first real engine error (docs/diagnosis.md).
                    foreach (var closed in block.Engine.Add(line))
                    {
                        block.Keep(closed);
                        if (closed is { Summary: { } summary })
                        {
                            block.Bytes = summary.Bytes;
                            block.EngineSeconds = summary.Seconds;
                        }
                    }

                    if (block.Engine.Rejected is { } rejected)
                    {
                        Problem(lineNumber, rejected.Reason);
                    }
                }
                else if (block.Outcome is not null && line.Trim().Length == 0)
                {
                    // The TAB line that closes a block (before the end line only when that line is missing).
                    if (Finish(block) is { } finished)
                    {
                        yield return finished;
                    }

                    block = null;
                }
            }
        }

        if (lastTimestamp is not null && afterStamp)
        {
            Problem(stampLine, "the output ends inside the command this line starts, before its 'Command:' line: the file was cut");
        }
        else if (block is { End: null })
        {
            // CommandExecute prints Outcome, Duration and the closing 'Date and time:' after every command it ran.
            Problem(block.Line, block.Outcome is null
                ? "the output ends inside this command, before its 'Outcome:' line: the file was cut or the job is still running; reported as incomplete"
                : "the output ends inside this command, before its closing 'Date and time:' line: the file was cut");
        }

        if (Finish(block) is { } last)
        {
            yield return last;
        }

        if (beforeFirstCommand)
        {
            foreach (var closed in cut.Finish())
            {
                if (CutCommand(closed) is { } headless)
                {
                    yield return headless;
                }
            }
        }
    }

    // The messages of a command whose "Command:" line the excerpt cut: an operation when they name its kind (a completion
    // or failure line); else they are lines of no operation, left out.
    private static OlaCommand? CutCommand(ClientOperation closed)
        => closed.Kind is { } kind && kind != OperationKind.Unknown
            ? new OlaCommand(null, closed.Messages, null) { CutKind = kind, CutDatabase = closed.Database }
            : null;

    /// <summary>
    /// The output's lines with their numbers, bounded like every text input's lines (a 20 MB Command: line must not
    /// become a 40 MB string, copied again), and Agent text folded by a copy joined back (<see cref="AgentFold"/>).
    /// </summary>
    private IEnumerable<(int Number, string Text, bool Truncated)> Lines(TextReader reader)
        => AgentFold.Join(BoundedLines(reader), line => line.Text, (head, next) => (head.Number, head.Text + next.Text, head.Truncated));

    private IEnumerable<(int Number, string Text, bool Truncated)> BoundedLines(TextReader reader)
    {
        var lines = new BoundedLineReader(reader);
        var number = 0;
        while (lines.ReadLine() is { } line)
        {
            number++;
            if (lines.Truncated)
            {
                Problem(number, BoundedLineReader.CutProblem(lines.LastLineLength));
            }

            yield return (number, line, lines.Truncated);
        }
    }

    // The line joined onto the command by the one rule for a command over several lines; a break kept inside a name is said once.
    private void CarryOn(Block block, string line)
    {
        block.Command = CommandContinuation.Join(block.Command, line, out var insideName);
        block.CommandCut = CommandContinuation.InsideQuote(block.Command);
        if (insideName && !block.NameBreakSaid)
        {
            block.NameBreakSaid = true;
            Problem(block.Line, "the command's text goes on over the next line (a line break inside a quoted name or path): read as one statement");
        }
    }

    // A rejected stamp where a command's start is due: the stamp before it (the header's) is not this command's start.
    private static void RejectStart(Block? block, ref DateTime? lastTimestamp, ref bool startRejected)
    {
        if (block is not { Outcome: not null, End: null })
        {
            lastTimestamp = null;
            startRejected = true;
        }
    }

    private OlaCommand? Finish(Block? block)
    {
        if (block is null)
        {
            return null;
        }

        var command = BackupCommandParser.Parse(block.Command);
        if (command is { IsVerifyOnly: true } && block.Outcome is not (null or "Not Executed"))
        {
            Verified(block, command);
        }

        if (command is null || command.IsVerifyOnly || block.Outcome == "Not Executed")
        {
            SkippedCommands++;
            return null;
        }

        if (block.Span is (var began, var ended))
        {
            CurrentExecution?.Add(OlaCommandRole.BackupOrRestore, began, ended);
        }

        foreach (var problem in command.Problems)
        {
            Problem(block.Line, problem);
        }

        var status = block.Outcome switch
        {
            "Succeeded" => OperationStatus.Completed,
            "Failed" => OperationStatus.Failed,
            null => OperationStatus.Incomplete,
            _ => (OperationStatus?)null,
        };
        if (status is null)
        {
            Problem(block.Line, $"unknown outcome '{block.Outcome}'");
            status = OperationStatus.Incomplete;
        }

        foreach (var closed in block.Engine.Finish())
        {
            block.Keep(closed);
        }

        if (block.Start is not { } start)
        {
            return new OlaCommand(null, block.Messages, command);
        }

        var end = block.Ended;

        var operation = new HistoryOperation
        {
            Kind = command.Kind,
            Scope = command.Scope,
            Database = command.Database,
            Start = start,
            End = end,
            TimeResolutionSeconds = 1,
            EngineSeconds = status == OperationStatus.Completed ? block.EngineSeconds : null,
            Status = status.Value,
            BytesRead = status == OperationStatus.Completed ? block.Bytes : null,
            Devices = command.Devices,
            Options = HistoryOptions.From(command),
            ErrorMessage = block.Error,
            Sources = [HistorySource.OlaOutput],
        };
        return new OlaCommand(operation, block.Messages, command);
    }

    // RESTORE VERIFYONLY reads a backup's media to check it: the job's verification step, never a restore.
    private void Verified(Block block, BackupCommand command)
    {
        var device = command.Devices is [{ Path: { } path }, ..] ? $" of {Path.GetFileName(path.Replace('\\', '/'))}" : string.Empty;
        var took = block.Span is (var start, var ended)
            ? string.Create(CultureInfo.InvariantCulture, $" in {Figures.Duration((ended - start).TotalSeconds)} ({start:HH:mm:ss} to {ended:HH:mm:ss})")
            : block.Duration is { } duration ? string.Create(CultureInfo.InvariantCulture, $" in {Figures.Duration(duration.TotalSeconds)}") : string.Empty;
        if (block.Span is (var from, var to))
        {
            CurrentExecution?.Add(OlaCommandRole.Verification, from, to);
        }

        _findings.Add(new InputProblem(string.Create(CultureInfo.InvariantCulture, $"line {block.Line}"),
            $"RESTORE VERIFYONLY{device}: the job's verification of a backup, not a restore: {block.Outcome?.ToLowerInvariant()}{took}"));
    }

    private void Problem(int line, string message)
        => _problems.Add(new InputProblem(string.Create(CultureInfo.InvariantCulture, $"line {line}"), message));

    /// <summary>The messages on one line: SQL Agent may end each with " [SQLSTATE xxxxx]" and run several together.</summary>
    private static IEnumerable<string> Messages(string line)
    {
        if (!line.Contains("[SQLSTATE ", StringComparison.Ordinal))
        {
            yield return line;
            yield break;
        }

        foreach (var part in SqlState().Split(line))
        {
            if (part.Trim().Length > 0)
            {
                yield return part.Trim();
            }
        }
    }

    /// <summary>The stamp of a "Date and time: yyyy-mm-dd hh:mi:ss" (or older "DateTime:") line: null when the line is not one, Value null when unreadable.</summary>
    private static (string Text, DateTime? Value)? Timestamp(string line)
    {
        string text;
        if (line.StartsWith("Date and time: ", StringComparison.Ordinal))
        {
            text = line["Date and time: ".Length..].Trim();
        }
        else if (line.StartsWith("DateTime: ", StringComparison.Ordinal))
        {
            text = line["DateTime: ".Length..].Trim();
        }
        else
        {
            return null;
        }

        return (text, DateTime.TryParseExact(text, "yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture, DateTimeStyles.None, out var value) ? value : null);
    }

    /// <summary>"hh:mm:ss" or "d.hh:mm:ss" (CommandExecute adds the days when a command runs past 24 hours).</summary>
    private static TimeSpan? Duration(string text)
    {
        var match = DurationPattern().Match(text);
        if (!match.Success)
        {
            return null;
        }

        var days = match.Groups["days"].Success ? int.Parse(match.Groups["days"].ValueSpan, CultureInfo.InvariantCulture) : 0;
        var hours = int.Parse(match.Groups["hours"].ValueSpan, CultureInfo.InvariantCulture);
        var minutes = int.Parse(match.Groups["minutes"].ValueSpan, CultureInfo.InvariantCulture);
        var seconds = int.Parse(match.Groups["seconds"].ValueSpan, CultureInfo.InvariantCulture);
        return hours < 24 && minutes < 60 && seconds < 60 && days * 86_400_000L <= ServerRanges.MaxDurationMs
            ? new TimeSpan(days, hours, minutes, seconds)
            : null;
    }

    [GeneratedRegex(@"^(?:(?<days>\d{1,5})\.)?(?<hours>\d{2}):(?<minutes>\d{2}):(?<seconds>\d{2})$", RegexOptions.CultureInvariant)]
    private static partial Regex DurationPattern();

    // CommandExecute re-raises a caught error as "Msg 3201, <text>"; Agent and sqlcmd print "Msg 3201, Level 16, State 1, ...".
    [GeneratedRegex(@"^Msg \d+, (?:Level \d+, State \d+(?:, [^:]*)?:?\s*)?(?<text>.+)$", RegexOptions.CultureInvariant)]
    private static partial Regex ErrorLine();

    [GeneratedRegex(@"\s*\[SQLSTATE \w{5}\](?:\s*\((?:Message|Error) \d+\))?", RegexOptions.CultureInvariant)]
    private static partial Regex SqlState();

    private sealed class Block(DateTime? start, int line, string command, TraceMessageParser parser)
    {
        /// <summary>The "Date and time:" before the command; null in an excerpt that starts at "Command:".</summary>
        public DateTime? Start { get; } = start;
        public int Line { get; } = line;
        public string Command { get; set; } = command;

        /// <summary>True until the first line after "Command:" that does not carry on the command's text.</summary>
        public bool CommandOpen { get; set; } = true;

        /// <summary>Lines read as the rest of a quote the command's text ended inside (<see cref="MaxContinuationLines"/>).</summary>
        public int QuotedLines { get; set; }

        /// <summary>True while the command's text ends inside a quote, and not because the line was cut at the bound: the next line is more of it.</summary>
        public bool CommandCut { get; set; }

        /// <summary>True when the "Command:" line was cut at the line bound: its text ends where the cut fell, and no later line carries it on.</summary>
        public bool CutAtBound { get; set; }

        /// <summary>True once a line break kept inside a bracketed name has been reported.</summary>
        public bool NameBreakSaid { get; set; }

        /// <summary>The engine's messages between "Command:" and "Outcome:" (bounded by ClientTranscript).</summary>
        public ClientTranscript Engine { get; } = new(parser);
        public string? Outcome { get; set; }
        public TimeSpan? Duration { get; set; }
        public DateTime? End { get; set; }

        /// <summary>The end line, which is the one to trust; Duration is the same whole seconds, and stands in when the end line is missing.</summary>
        public DateTime? Ended => End ?? (Start is { } start && Duration is { } duration ? start + duration : null);

        /// <summary>The command's span on the client's clock, when both ends are known and in order.</summary>
        public (DateTime Start, DateTime End)? Span => Start is { } start && Ended is { } end && end >= start ? (start, end) : null;
        public long? Bytes { get; set; }
        public double? EngineSeconds { get; set; }
        public string? Error { get; set; }

        /// <summary>The engine's messages of the command, in output order.</summary>
        public List<ClientMessage> Messages { get; } = [];

        public void Keep(ClientOperation? engine)
        {
            if (engine is not null)
            {
                Messages.AddRange(engine.Messages);
            }
        }
    }
}

/// <summary>
/// One command of CommandExecute's output: its history record (null when the output starts mid-command, with no
/// "Date and time:" before it), the engine's messages printed for it, and the command as parsed (null for the messages an
/// excerpt holds before its first "Command:" line, whose command was cut).
/// </summary>
public sealed record OlaCommand(HistoryOperation? Operation, IReadOnlyList<ClientMessage> EngineMessages, BackupCommand? Command)
{
    /// <summary>For messages before an excerpt's first "Command:" line (<see cref="Command"/> null): the kind their closing line names.</summary>
    public OperationKind? CutKind { get; init; }

    /// <summary>For messages before an excerpt's first "Command:" line: the database they name, if any.</summary>
    public string? CutDatabase { get; init; }

    /// <summary>The kind of operation the messages belong to: the command's, else what they name.</summary>
    public OperationKind? Kind => Command?.Kind ?? CutKind;

    /// <summary>The database the messages belong to: the command's, else what they name.</summary>
    public string? Database => Command?.Database ?? CutDatabase;
}
