using System.Globalization;
using System.Text;
using BackupXe.Core.Analysis;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.ClientOutput;

/// <summary>
/// Client output (SSMS, sqlcmd, SQL Agent job steps) as trace events. The lines have no clock, so every event has
/// <see cref="TraceEvent.NoClock"/>; the kind and database of an operation are known only when its closing line
/// arrives, so <see cref="ClientTranscript"/> holds one operation's messages and they are emitted together.
/// </summary>
internal sealed class ClientOutputEventSource : ISynchronousTraceEventSource, IReadAheadAdvice
{
    private readonly Func<Stream> _open;
    private readonly Encoding _encodingWithoutBom;

    public ClientOutputEventSource(string name, Func<Stream> open, Encoding? encodingWithoutBom)
    {
        Name = name;
        _open = open;
        _encodingWithoutBom = encodingWithoutBom ?? new UTF8Encoding(encoderShouldEmitUTF8Identifier: false);
    }

    public string Name { get; }

    public string Format => "client-output";

    /// <summary>
    /// False: the output may name its server (a printed @@VERSION) after its operations, and a reader ahead on its own
    /// thread would then name it to operations that a reading in step completes before it.
    /// </summary>
    public bool ReadAheadPays => false;

    public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken)
        => ReadEvents(status, cancellationToken).ToAsyncEnumerable();

    /// <summary>The same events without awaiting: a single output is read in step with the analysis, with no merge.</summary>
    public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
    {
        if (TextInput.Open(_open, _encodingWithoutBom, status) is not { } reader)
        {
            yield break;
        }

        using (reader)
        {
            var transcript = new ClientTranscript();
            var excerpt = new ExcerptRuns(new DiagnosisSettings().QuickOperationSeconds);
            var lineNumber = 0;
            var operations = 0;
            var excerptRuns = 0;

            // A command the output echoes before its messages (sp_DatabaseRestore prints each one it runs) names the
            // database its messages may not.
            BackupCommand? echoed = null;

            // The line where SQL Server last said a database was RESTORING: what an aborted command's kind is told by.
            var restoringLine = 0;

            // Set once an aborted restore closed: SQL Server saying RESTORING after it shows the abort left the database so.
            var abortedRestore = false;

            // The procedure an error header named whose name tells its work, and that header's line: the kind of an
            // operation of errors only (realworld4 V28, Ola's DatabaseBackup).
            (string Name, OperationKind Kind, int Line)? procedure = null;
            var read = AgentFold.Join(Lines(reader, status, cancellationToken), l => l.Text, (head, next) => (head.Number, head.Text + next.Text, next.Ended));
            foreach (var (number, text, ended) in read)
            {
                lineNumber = number;
                var line = text;
                if (ErrorlogLine.LooksBinary(line))
                {
                    if (DamagedMessages.Without(line) is not { } rest)
                    {
                        status.Report($"line {lineNumber}", "binary or control characters, not client output; line skipped");
                        continue;
                    }

                    status.Report($"line {lineNumber}", string.Create(CultureInfo.InvariantCulture,
                        $"message {string.Join(", ", rest.Dropped)} of the line's messages holds binary or control characters: skipped, the rest of the line read"));
                    line = rest.Kept;
                }

                var closedOperations = transcript.Add(line);
                if (transcript.LastMessage is UnknownMessage && Echoed(line) is { } command)
                {
                    echoed = command;
                }
                NoteServer(line, transcript.LastMessage, lineNumber, status);
                if (transcript.Rejected is { } rejected)
                {
                    status.Report($"line {lineNumber}", $"{rejected.Reason}; line skipped");
                }
                else if (!ended && transcript.LastMessage is UnknownMessage && LooksCut(line))
                {
                    status.Report($"line {lineNumber}", $"the input ends inside this message ('{line.Trim()}'): the output was cut");
                }

                if (transcript.LateOutput)
                {
                    status.Find($"line {lineNumber}", $"'{line.Trim()}' came after the client's time-out and SQL Server's abort of the command: the client printed it "
                        + "late, so it is the aborted operation's progress before the abort, not an operation still open");
                }

                if (excerpt.Add(lineNumber, line, transcript.LastMessage) is { } runs)
                {
                    excerptRuns += ReportExcerpt(runs, status);
                }

                foreach (var operation in closedOperations)
                {
                    operations++;
                    abortedRestore |= operation.KindEvidence is not null;
                    foreach (var traceEvent in Events(ByProcedure(Named(operation, ref echoed), ref procedure, status), status, lineNumber, restoringLine))
                    {
                        yield return traceEvent;
                    }
                }

                if (ErrorProcedure.In(line) is { } named && ErrorProcedure.KindOf(named) is { } work)
                {
                    procedure = (named, work, lineNumber);
                }

                // After the operations this line closed: a RESTORING said after an abort tells nothing of its kind, but
                // that the abort left the database so (realworld4 V27).
                restoringLine = transcript.SaidRestoring ? lineNumber : restoringLine;
                if (transcript.SaidRestoring && abortedRestore)
                {
                    abortedRestore = false;
                    status.Find($"line {lineNumber}", "after the aborted restore SQL Server still says the database is in the Restoring state: the abort left it "
                        + "RESTORING, not usable, which is why the statements after it fail");
                }
            }

            if (excerpt.Finish() is { } lastRuns)
            {
                excerptRuns += ReportExcerpt(lastRuns, status);
            }

            var reported = transcript.Rejected;
            var finished = transcript.Finish();

            // A line held to see whether the next continues it (an Agent step ends in its own text) is read only now.
            if (transcript.Rejected is { } lastRejected && !ReferenceEquals(lastRejected, reported))
            {
                status.Report($"line {lineNumber}", $"{lastRejected.Reason}; message skipped");
            }

            foreach (var last in finished)
            {
                if (last.Kind is null)
                {
                    status.Report($"line {lineNumber}", $"the input ends after {last.Messages.Count} message(s) that no completion line closed: an operation still running, or an output cut short");
                }
                else
                {
                    operations++;
                    if (last is { Summary: null, Failure: null, LastPercent: 100, Kind: OperationKind.Restore })
                    {
                        // SQL Server 2000/2005's "100 percent restored." with no completion line after it (docs/backup-internals.md, "Completion lines").
                        status.Report($"line {lineNumber}", "the input ends after '100 percent restored.' with no completion line: the restore's copy had ended and its recovery had not "
                            + "when the output was taken (still recovering), or the output was cut");
                    }
                }

                foreach (var traceEvent in Events(ByProcedure(Named(last, ref echoed), ref procedure, status), status, lineNumber, restoringLine))
                {
                    yield return traceEvent;
                }
            }

            if (operations == 0 && status.Events == 0 && excerptRuns == 0)
            {
                status.Unusable = true;
                status.Report("file", "no backup or restore message found");
            }
        }
    }

    // Bounded like the ERRORLOG's lines: a 200 MB line must not become a 400 MB string.
    private static IEnumerable<(int Number, string Text, bool Ended)> Lines(TextReader reader, SourceStatus status, CancellationToken cancellationToken)
    {
        var lines = new BoundedLineReader(reader);
        var number = 0;
        while (true)
        {
            string? line;
            try
            {
                cancellationToken.ThrowIfCancellationRequested();
                line = lines.ReadLine();
            }
            catch (IOException e)
            {
                status.Report($"line {number + 1}", $"reading stopped: {e.Message}");
                yield break;
            }

            if (line is null)
            {
                yield break;
            }

            number++;
            if (lines.Truncated)
            {
                status.Report($"line {number}", BoundedLineReader.CutProblem(lines.LastLineLength));
            }

            yield return (number, line, lines.LastLineEnded);
        }
    }

    // "RESTORE DATABASE [db] WITH RECOVERY" printed by the script that ran it: a statement, with its devices or options, not
    // the head of an engine message a width folded ("RESTORE DATABASE successfully processed 0 pages in").
    private static BackupCommand? Echoed(string line)
    {
        var text = line.TrimStart();
        return (text.StartsWith("BACKUP ", StringComparison.OrdinalIgnoreCase) || text.StartsWith("RESTORE ", StringComparison.OrdinalIgnoreCase))
            && BackupCommandParser.Parse(text) is { IsVerifyOnly: false, Database: not null } command
            && (command.Devices.Count > 0 || text.Contains(" WITH ", StringComparison.OrdinalIgnoreCase))
                ? command
                : null;
    }

    // The operation with the database of the command echoed before it, when its messages named none and the kinds agree;
    // the echo serves that one operation only.
    private static ClientOperation Named(ClientOperation operation, ref BackupCommand? echoed)
    {
        var command = echoed;
        echoed = null;
        return operation.Database is null && command is not null && operation.Kind == command.Kind ? operation with { Database = command.Database } : operation;
    }

    // An operation whose lines did not say its kind, of the kind of the procedure whose error header it holds; the
    // procedure serves that one operation only.
    private static ClientOperation ByProcedure(ClientOperation operation, ref (string Name, OperationKind Kind, int Line)? procedure, SourceStatus status)
    {
        var named = procedure;
        procedure = null;
        if (operation.Kind != OperationKind.Unknown || named is not { } from)
        {
            return operation;
        }

        status.Find($"line {from.Line}", $"the error came from the procedure {from.Name} (its header names it), Ola Hallengren's {ErrorProcedure.OlaBackupProcedure}, "
            + "which runs backups: the work it stopped was a backup");
        return operation with
        {
            Kind = from.Kind,
            Messages = [.. operation.Messages.Select(m => m.Message is ClosingError closing ? m with { Message = closing with { Kind = from.Kind } } : m)],
        };
    }

    // The last message of the line, whatever wraps it (a PowerShell VERBOSE: prefix, an Agent SQLSTATE suffix), is the
    // one a cut ends; a line cut inside the prefix itself ("VERBO") was a message too.
    private static bool LooksCut(string line)
    {
        var text = line.Trim();
        if (text.Length > 0 && ("VERBOSE:".StartsWith(text, StringComparison.Ordinal) || "WARNING:".StartsWith(text, StringComparison.Ordinal)))
        {
            return true;
        }

        return ClientLine.IsWrapped(line) ? ClientLine.Unwrap(line) is [.., var last] && ClientTranscript.LooksCut(last) : ClientTranscript.LooksCut(line);
    }

    // Which server ran these commands, where the output says it: a SELECT @@VERSION printed by sqlcmd or SSMS (its
    // first line is the banner an ERRORLOG opens with), else the database version a restore converted to, which names
    // the release only and gives way to a banner further on.
    private static void NoteServer(string line, TraceMessage? message, int lineNumber, SourceStatus status)
    {
        if (status.Server?.Build is not null)
        {
            return;
        }

        var text = line.TrimStart();
        if (text.StartsWith(ServerVersion.BannerStart, StringComparison.Ordinal))
        {
            status.Server = ServerVersion.FromBanner(text, $"the @@VERSION text in the output, line {lineNumber}");
        }
        else if (message is DatabaseUpgrade { IsStep: false } upgrade)
        {
            status.Server = ServerVersion.FromDatabaseVersion(upgrade.ToVersion, $"line {lineNumber}");
        }
    }

    // An excerpt's timed runs are read but are no operation: what they show is a finding at the runs' lines, not damage
    // of the input (docs/input-formats.md, client output). Returns how many runs were reported.
    private static int ReportExcerpt(ExcerptGroup runs, SourceStatus status)
    {
        status.Find(runs.Location, runs.Sentence());
        return runs.Runs.Count;
    }

    private static IEnumerable<TraceEvent> Events(ClientOperation operation, SourceStatus status, int lineNumber, int restoringLine)
    {
        if (operation.DroppedMessages > 0)
        {
            status.Report($"line {lineNumber}",
                $"{operation.DroppedMessages} message(s) beyond {ClientTranscript.MaxMessagesPerOperation} in one operation were skipped");
        }

        if (operation.KindEvidence is { } evidence)
        {
            status.Find($"line {restoringLine}", $"the aborted command was a restore: no failure line named its kind ('The backup or restore was aborted.' names both), "
                + $"and SQL Server said before it that the database was in the Restoring state ('{evidence}'), which a restore leaves");
        }

        foreach (var message in operation.Messages)
        {
            status.Events++;

            // The transcript's meaning goes with the text: parsed once, and an abort whose kind the output's other lines
            // gave carries that kind, which its text does not.
            yield return new ProgressTraceEvent(TraceEvent.NoClock, null, operation.Kind, operation.Database,
                new ParsedText(message.Text, new ParsedTraceMessage(message.Database, message.Message)));
        }
    }
}
