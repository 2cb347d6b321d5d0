using System.Collections.Immutable;
using System.Diagnostics.CodeAnalysis;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// Turns one backup/restore trace message (XE <c>trace_message</c> or the text of an ERRORLOG line after its
/// timestamp and process columns) into a <see cref="TraceMessage"/>. Never throws on content: a text outside the
/// vocabulary of docs/backup-internals.md#message-vocabulary becomes <see cref="UnknownMessage"/>.
/// </summary>
/// <remarks>
/// Matching is by phrase, ordinal and case-insensitive, with any run of white space standing for one space,
/// because XE and ERRORLOG renderings of the same step are not confirmed to agree on spacing or case.
/// No regular expressions: a million messages are dispatched on their first character to a handful of
/// candidate phrases, and the few numbers and paths are read straight off the span.
/// </remarks>
public sealed partial class TraceMessageParser
{
    private delegate TraceMessage? Rule(Body body, ReadOnlySpan<char> rest);

    // A class, not a struct: the LINQ that builds the buckets then runs the framework's precompiled shared code
    // instead of being JIT-compiled for a value type at every start-up, which a short analyze would feel.
    private sealed record Entry(string Phrase, Rule Rule)
    {
        // The phrase's second character as MatchPhrase compares it (ASCII case folded), or -1 when it is a space,
        // which any white space matches. Testing it first passes over most of a bucket's phrases at the cost of
        // one comparison each.
        public int Second { get; } = Phrase.Length > 1 && Phrase[1] != ' ' ? Phrase[1] | 0x20 : -1;
    }

    // Indexed by the lower-case ASCII first character of a phrase; longest phrase first so that
    // "Scanning allocation bitmaps is complete" is tried before "Scanning allocation bitmaps".
    private static readonly ImmutableArray<ImmutableArray<Entry>> Buckets = BuildBuckets();

    private static readonly ImmutableArray<PhaseMarker> Markers = BuildMarkers();

    private static readonly BufferConfigurationHeader BufferHeader = new();

    // How a progress line in the server's wording ends: "... (1048576/95303680 bytes) processed".
    private const string ServerPercentTail = " bytes) processed";

    // Per parser, and so per input stream: the last database named by a "Backup(db):" prefix, kept only to
    // avoid allocating the same name for every line of one operation. It never changes what a message means.
    private string? _lastPrefixDatabase;

    // The whole prefix text ("Backup(db): ") of the last progress line read by TryServerProgress, and the database
    // it names. The next percent line of the same operation starts with the same characters, and those alone decide
    // what StripOperationPrefix reads: it is taken as read then instead of read again (docs/performance.md, decisions).
    private (string Text, string? Database) _lastProgressPrefix = (string.Empty, null);

    /// <summary>Parses one message; <paramref name="text"/> may carry the ERRORLOG "Backup(db): " prefix.</summary>
    public ParsedTraceMessage Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);

        var span = text.AsSpan();
        var start = 0;
        while (start < span.Length && char.IsWhiteSpace(span[start]))
        {
            start++;
        }

        var end = span.Length;
        while (end > start && char.IsWhiteSpace(span[end - 1]))
        {
            end--;
        }

        var database = StripOperationPrefix(span, ref start, end);
        var body = new Body(text, start, end - start);
        var message = Match(body) ?? new UnknownMessage(body.ToText());
        return new ParsedTraceMessage(database, message);
    }

    /// <summary>
    /// The event of a progress line in the server's exact wording, prefix and all ("Backup(db): 1 percent
    /// (1048576/95303680 bytes) processed"), read off <paramref name="text"/> without making a string of it; false
    /// for any other text, which the caller then makes a string of and gives to <see cref="Parse"/>.
    /// </summary>
    /// <remarks>
    /// The event's text is a <see cref="ParsedText"/> whose <see cref="ParsedText.Parsed"/> is what <see cref="Parse"/>
    /// gives for the same text, and its <see cref="ProgressTraceEvent.Message"/>, written back only if asked for, is the text character for
    /// character: only a line with no white space around it and no leading zero in its numbers is taken, and
    /// those are exactly the lines that the prefix and the three numbers write back.
    /// </remarks>
    public bool TryServerProgress(
        ReadOnlySpan<char> text, DateTime timestamp, int? sessionId, [NotNullWhen(true)] out ProgressTraceEvent? progress)
    {
        progress = null;

        // Every such line ends so; testing that first spares the other lines (a third of a 3014 log) a prefix strip
        // that Parse then does again.
        if (!text.EndsWith(ServerPercentTail))
        {
            return false;
        }

        // White space after the prefix would belong to it too, but no digit would: the digit that must open the body
        // anyway proves the prefix ends where it ended last time.
        var last = _lastProgressPrefix;
        var known = last.Text.Length > 0 && text.Length > last.Text.Length && char.IsAsciiDigit(text[last.Text.Length])
            && text.StartsWith(last.Text);
        var start = known ? last.Text.Length : 0;
        var database = known ? last.Database : StripOperationPrefix(text, ref start, text.Length);
        var body = text[start..];
        if (body.IsEmpty || !char.IsAsciiDigit(body[0])
            || !TryServerPercent(body, out var message, out var canonical) || !canonical
            || message is not PercentProcessed)
        {
            return false;
        }

        if (!known)
        {
            _lastProgressPrefix = (start == 0 ? string.Empty : text[..start].ToString(), database);
        }

        progress = new ProgressTraceEvent(
            timestamp, sessionId, kind: null, databaseName: null, ParsedText.ServerProgress(_lastProgressPrefix.Text, new ParsedTraceMessage(database, message)));
        return true;
    }

    private static TraceMessage? Match(Body body)
    {
        var span = body.Span;
        if (span.IsEmpty)
        {
            return null;
        }

        var first = span[0];
        if (char.IsAsciiDigit(first))
        {
            return ParsePercent(span);
        }

        if (!char.IsAscii(first))
        {
            return null;
        }

        var second = span.Length > 1 ? span[1] | 0x20 : -1;
        foreach (var entry in Buckets[char.ToLowerInvariant(first)])
        {
            if (entry.Second >= 0 && second >= 0 && entry.Second != second)
            {
                continue;
            }

            var consumed = MatchPhrase(span, entry.Phrase);
            if (consumed < 0)
            {
                continue;
            }

            var result = entry.Rule(body, span[consumed..]);
            if (result is not null)
            {
                return result;
            }
        }

        return null;
    }

    // The ERRORLOG writes "Backup(db): " before most 3014 lines and "Restore: " before 3004 lines; other
    // "Backup..."/"Restore..." words ("BackupStream(0):", "RestoreDatabase:") are message text, not prefixes.
    private string? StripOperationPrefix(ReadOnlySpan<char> text, ref int start, int end)
    {
        var span = text[start..end];
        int word;
        if (span.StartsWith("Backup", StringComparison.OrdinalIgnoreCase))
        {
            word = 6;
        }
        else if (span.StartsWith("Restore", StringComparison.OrdinalIgnoreCase))
        {
            word = 7;
        }
        else
        {
            return null;
        }

        var i = SkipWhiteSpace(span, word);
        if (i >= span.Length)
        {
            return null;
        }

        if (span[i] == ':')
        {
            start += SkipWhiteSpace(span, i + 1);
            return null;
        }

        if (span[i] != '(')
        {
            return null;
        }

        var nameStart = i + 1;
        for (var close = CloseParenthesis(span[nameStart..]); close >= 0;)
        {
            var closeAt = nameStart + close;
            var colon = SkipWhiteSpace(span, closeAt + 1);
            if (colon < span.Length && span[colon] == ':')
            {
                var name = span[nameStart..closeAt].Trim();
                start += SkipWhiteSpace(span, colon + 1);
                return name.IsEmpty ? null : Intern(name);
            }

            var next = span[(closeAt + 1)..].IndexOf(')');
            close = next < 0 ? -1 : closeAt + 1 + next - nameStart;
        }

        return null;
    }

    // A database name is a few characters: a plain loop finds its ')' sooner than a vectorised search is set up.
    private static int CloseParenthesis(ReadOnlySpan<char> text)
    {
        for (var i = 0; i < text.Length; i++)
        {
            if (text[i] == ')')
            {
                return i;
            }
        }

        return -1;
    }

    // One operation writes thousands of lines naming the same database: reuse the last name instead of
    // allocating it per line.
    private string Intern(ReadOnlySpan<char> name) => Reuse(name, ref _lastPrefixDatabase);

    private static string Reuse(ReadOnlySpan<char> text, ref string? last)
    {
        if (last is not null && text.SequenceEqual(last))
        {
            return last;
        }

        last = text.ToString();
        return last;
    }

    private static ImmutableArray<ImmutableArray<Entry>> BuildBuckets()
    {
        var entries = new List<Entry>();

        void Step(string phrase)
        {
            // Steps are written verbatim thousands of times: share one record for the exact wording.
            var shared = new KnownStep(phrase);
            entries.Add(new(phrase, (body, rest) =>
                !IsEnd(rest) ? null
                : body.Span.SequenceEqual(phrase) ? shared
                : Known(body)));
        }

        void StepWithDetail(string phrase) => entries.Add(new(phrase, static (body, _) => Known(body)));
        void Marker(string phrase, OperationPhase phase, PhaseEdge edge) =>
            entries.Add(new(phrase, (_, rest) => IsEnd(rest) ? MarkerOf(phase, edge) : null));
        void MarkerWithDetail(string phrase, OperationPhase phase, PhaseEdge edge) =>
            entries.Add(new(phrase, (_, _) => MarkerOf(phase, edge)));
        void Loose(string phrase, OperationPhase phase) =>
            entries.Add(new(phrase, (_, rest) => LooseEdge(rest) is { } edge ? MarkerOf(phase, edge) : null));
        void Buffer(string label, BufferParameter parameter) =>
            entries.Add(new(label, (_, rest) => ParseBufferValue(rest, parameter)));
        void Add(string phrase, Rule rule) => entries.Add(new(phrase, rule));

        // Operation start, end, failure and completion: "BACKUP DATABASE started", "RESTORE LOG finished",
        // "BACKUP failed to complete the command ...", "... is terminating abnormally.", "... successfully processed".
        Add("BACKUP", static (body, rest) => ParseOperationLine(body, rest, OperationKind.Backup));
        Add("RESTORE", static (body, rest) => ParseOperationLine(body, rest, OperationKind.Restore));

        // Trace flag 3004 names the operation this way (docs/backup-internals.md#restore-steps); the Backup* forms are the same
        // shape seen in older 3004 posts and are not confirmed by a fixture.
        Add("RestoreDatabase", static (_, rest) => ParseLegacyStart(rest, OperationKind.Restore, OperationScope.Database));
        Add("RestoreLog", static (_, rest) => ParseLegacyStart(rest, OperationKind.Restore, OperationScope.Log));
        Add("BackupDatabase", static (_, rest) => ParseLegacyStart(rest, OperationKind.Backup, OperationScope.Database));
        Add("BackupLog", static (_, rest) => ParseLegacyStart(rest, OperationKind.Backup, OperationScope.Log));

        // Errors 3xxx are the backup/restore range (3013 terminating abnormally, 3041 failed to complete, 3201
        // cannot open device...); severity 10 lines are informational and never come with this header.
        Add("Error", static (body, rest) => ParseErrorHeader(body, rest));

        // A client's error line: the real reason of a failure comes before or after the generic 3013 (docs/diagnosis.md).
        Add("Msg", static (_, rest) => ParseEngineError(rest));

        // Lines a client prints with no number: SQL Server's own end of a cancelled command (3204), and the driver's
        // command time-out that makes the client cancel it (docs/message-catalog.md, "The client's time-out").
        Add("The backup or restore was aborted", static (body, rest) => IsEnd(rest) ? new EngineError(EngineMessageCatalog.Aborted, null, body.ToText()) : null);
        Add("Timeout expired", static (body, _) => ParseClientTimeout(body));
        Add("Execution Timeout Expired", static (body, _) => ParseClientTimeout(body));

        // A statement refused because of the database's state (5052), which tells what left it so (realworld4 V27).
        Add("ALTER DATABASE is not permitted while a database is in the", static (_, rest) => ParseStateRefusal(rest));

        // Backup steps with nothing to measure, in the order of the trace flag 3014 sample.
        Step("Opening the database with S lock");
        Step("Acquiring bulk-op lock on the database");
        Step("Synchronizing with other operations on the database is complete");
        Step("Opening the backup media set");
        Step("The backup media set is open");
        Step("Preparing the media set for writing");
        Step("The media set is ready for backup");
        Step("Clearing differential bitmaps");
        Step("Differential bitmaps are cleared");
        Step("Scanning allocation bitmaps is complete");
        Step("Writing the leading metadata");
        Step("Writing leading metadata");
        StepWithDetail("Start LSN");
        StepWithDetail("Last LSN");
        StepWithDetail("FID=");
        StepWithDetail("TotalSize=");
        StepWithDetail("InitialExpectedSize=");
        StepWithDetail("Shared Backup BufferQ count");

        // SQL Server 2008 R2 writes the padding line without its "BackupStream(n): " head.
        StepWithDetail("Padding MSDA");

        // Restore steps with nothing to measure (3004 wording, then the XE wording from article lists).
        Step("Opening backup set");
        Step("Opening the backup set");
        Step("Configuration section loaded");
        Step("Backup set is open");
        Step("Processing the leading metadata");
        Step("Restoring backup set");
        Step("Restoring the backup set");
        Step("Backup set restored");
        StepWithDetail("BeginRestore");
        StepWithDetail("Beginning OFFLINE restore");
        StepWithDetail("Beginning ONLINE restore");
        StepWithDetail("Attached database");

        // Backing up a database with memory-optimized tables may log this warning, harmless when its file name ends in
        // 1000016 (Microsoft KB 4316959, SQL Server 2016): recognised, nothing to measure.
        StepWithDetail("[WARNING] HkHostBackupGetCheckpointFileInfoV2");

        // Trace flag 3004 detail lines of SQL Server 2012-2014 with nothing to measure.
        StepWithDetail("SetTargetRestoreAge");
        StepWithDetail("FileHandleCache");

        // Backup phases. Startup has no marker (it runs from the start to the first marker) and copy-data
        // has no confirmed closing line (it ends where the next phase begins).
        Marker("Writing a checkpoint", OperationPhase.Checkpoint, PhaseEdge.Begin);
        Marker("Checkpoint is complete", OperationPhase.Checkpoint, PhaseEdge.End);
        Marker("Scanning allocation bitmaps", OperationPhase.Estimate, PhaseEdge.Begin);
        Marker("Calculating expected size of total data", OperationPhase.Estimate, PhaseEdge.Begin);
        Marker("Work estimation is complete", OperationPhase.Estimate, PhaseEdge.End);
        Loose("Copying data files", OperationPhase.CopyData);

        // The closing steps are known only from article prose (docs/backup-internals.md#backup-steps): accept the wordings seen there.
        Loose("Copying transaction log", OperationPhase.CopyLog);
        Loose("Copying the transaction log", OperationPhase.CopyLog);
        Loose("Copying log", OperationPhase.CopyLog);
        Loose("Copying the log", OperationPhase.CopyLog);
        Loose("Log copy", OperationPhase.CopyLog);
        foreach (var phrase in new[]
                 {
                     "Writing the trailing metadata", "Writing trailing metadata", "Writing end of backup set",
                     "Writing the end of backup set", "Writing history records",
                 })
        {
            Add(phrase, static (body, rest) => FinalizeStep(body, rest));
        }

        // Restore phases.
        Loose("Planning", OperationPhase.Planning);
        Marker("PreparingContainers", OperationPhase.PrepareContainers, PhaseEdge.Begin);
        Marker("Preparing containers", OperationPhase.PrepareContainers, PhaseEdge.Begin);
        Marker("Containers are ready", OperationPhase.PrepareContainers, PhaseEdge.End);
        MarkerWithDetail("Transferring data to", OperationPhase.TransferData, PhaseEdge.Begin);
        MarkerWithDetail("Data transfer complete on", OperationPhase.TransferData, PhaseEdge.End);
        MarkerWithDetail("Data transfer is complete on", OperationPhase.TransferData, PhaseEdge.End);
        MarkerWithDetail("Waiting for log zero on", OperationPhase.WaitLogZero, PhaseEdge.Begin);
        Marker("LogZero complete", OperationPhase.WaitLogZero, PhaseEdge.End);
        Marker("Log zero complete", OperationPhase.WaitLogZero, PhaseEdge.End);
        // The trace flag 3004 closing steps as published restore walkthroughs print them; not in a fixture, so
        // each is also matched by the looser wordings below.
        MarkerWithDetail("Restore-Redo begins on database", OperationPhase.Redo, PhaseEdge.Begin);
        MarkerWithDetail("Rollforward complete on database", OperationPhase.Redo, PhaseEdge.End);
        Marker("Transitioning database to ONLINE", OperationPhase.Recovery, PhaseEdge.Begin);
        Marker("Database is restarted", OperationPhase.Recovery, PhaseEdge.End);
        Step("Done with fixups");
        Step("Restarting database for ONLINE");
        Step("Resuming any halted fulltext crawls");
        Loose("Redo", OperationPhase.Redo);
        Loose("Rollforward", OperationPhase.Redo);
        Loose("Roll forward", OperationPhase.Redo);
        Marker("Starting redo", OperationPhase.Redo, PhaseEdge.Begin);
        Marker("Starting rollforward", OperationPhase.Redo, PhaseEdge.Begin);
        Loose("Recovery", OperationPhase.Recovery);
        Marker("Starting recovery", OperationPhase.Recovery, PhaseEdge.Begin);

        // Client output (SSMS, sqlcmd, Agent job steps) and SQL Server 2022+ upgrade steps after a restore.
        Add("Processed", static (_, rest) => ParseFilePages(rest));
        Add("Converting database", static (_, rest) => ParseUpgrade(rest, isStep: false));
        Add("Database '", static (_, rest) => ParseUpgradeStep(rest));
        Add("Database '", static (_, rest) => ParseSuspendStep(rest));
        Add("I/O is frozen on database", static (_, rest) => ParseFreeze(rest, SnapshotEvent.IoFrozen));
        Add("I/O was resumed on database", static (_, rest) => ParseFreeze(rest, SnapshotEvent.IoResumed));
        Add("The database '", static (_, rest) => ParseMarkedRestoring(rest));

        // A published excerpt's completion line with its head cut by the author: "... in 1.414 seconds (134.067 MB/sec)".
        Add("...", static (_, rest) => ParseElidedCompletion(rest));

        // Measured lines.
        Add("Backup/Restore buffer configuration parameters", static (_, rest) => IsEnd(rest) ? BufferHeader : null);
        Add("Effective options", static (_, rest) => ParseEffectiveOptions(rest));
        Add("Estimated total size", static (_, rest) => ParseEstimatedSize(rest));
        Add("Number of data file readers", static (_, rest) => ParseReaders(rest));
        Add("Reading the data file", static (_, rest) => PathOf(rest) is { } path ? new DataFileReadStarted(path) : null);
        Add("Started file", static (_, rest) => PathOf(rest) is { } path ? new DataFileReadStarted(path) : null);
        Add("Completed reading the data file", static (_, rest) => PathOf(rest) is { } path ? new DataFileReadCompleted(path) : null);
        Add("Completed file", static (_, rest) => PathOf(rest) is { } path ? new DataFileReadCompleted(path) : null);
        Add("BackupStream", static (body, rest) => ParseBackupStream(body, rest));
        Add("Zeroing completed on", static (_, rest) => PathOf(rest) is { } path ? new ZeroingCompleted(path) : null);
        Add("Zeroing", static (_, rest) => ParseZeroing(rest));

        // History records (messages 18264 onwards). The differential and log-restore siblings follow the same
        // "Database: X, ..." shape; their lead wording is from the message catalogue, not from a fixture.
        Add("Database backed up", static (_, rest) => ParseHistory(rest, OperationKind.Backup, OperationScope.Database));
        Add("Database differential changes were backed up", static (_, rest) => ParseHistory(rest, OperationKind.Backup, OperationScope.Differential));
        Add("Log was backed up", static (_, rest) => ParseHistory(rest, OperationKind.Backup, OperationScope.Log));
        Add("Database was restored", static (_, rest) => ParseHistory(rest, OperationKind.Restore, OperationScope.Database));
        Add("Database changes were restored", static (_, rest) => ParseHistory(rest, OperationKind.Restore, OperationScope.Differential));
        Add("Log was restored", static (_, rest) => ParseHistory(rest, OperationKind.Restore, OperationScope.Log));

        // Buffer configuration block (trace flag 3213): labels of SQL Server 2012+ and of 2005-2008.
        Buffer("Memory limit", BufferParameter.MemoryLimit);
        Buffer("BufferCount", BufferParameter.BufferCount);
        Buffer("Buffer count", BufferParameter.BufferCount);
        Buffer("Sets Of Buffers", BufferParameter.SetsOfBuffers);
        Buffer("MaxTransferSize", BufferParameter.MaxTransferSize);
        Buffer("Max transfer size", BufferParameter.MaxTransferSize);
        Buffer("Min MaxTransferSize", BufferParameter.MinMaxTransferSize);
        Buffer("Min MaxTransfer size", BufferParameter.MinMaxTransferSize);
        Buffer("Total buffer space", BufferParameter.TotalBufferSpace);
        Buffer("Tabular data device count", BufferParameter.TabularDataDeviceCount);
        Buffer("Fulltext data device count", BufferParameter.FulltextDataDeviceCount);
        Buffer("Filestream device count", BufferParameter.FilestreamDeviceCount);
        Buffer("TXF device count", BufferParameter.TxfDeviceCount);
        Buffer("FileTree data device count", BufferParameter.FileTreeDataDeviceCount);
        Buffer("Filesystem i/o alignment", BufferParameter.FilesystemIoAlignment);
        Buffer("Media Buffer count", BufferParameter.MediaBufferCount);
        Buffer("Media Buffer size", BufferParameter.MediaBufferSize);
        Buffer("Encode Buffer count", BufferParameter.EncodeBufferCount);
        Buffer("Buffers per read stream", BufferParameter.BuffersPerReadStream);
        Buffer("Buffers per write stream", BufferParameter.BuffersPerWriteStream);

        var buckets = ImmutableArray.CreateBuilder<ImmutableArray<Entry>>(128);
        for (var c = 0; c < 128; c++)
        {
            buckets.Add(entries
                .Where(e => char.ToLowerInvariant(e.Phrase[0]) == c)
                .OrderByDescending(e => e.Phrase.Length)
                .ToImmutableArray());
        }

        return buckets.MoveToImmutable();
    }

    private static ImmutableArray<PhaseMarker> BuildMarkers()
    {
        var phases = Enum.GetValues<OperationPhase>();
        var markers = new PhaseMarker[phases.Length * 2];
        foreach (var phase in phases)
        {
            markers[((int)phase * 2) + (int)PhaseEdge.Begin] = new PhaseMarker(phase, PhaseEdge.Begin);
            markers[((int)phase * 2) + (int)PhaseEdge.End] = new PhaseMarker(phase, PhaseEdge.End);
        }

        return [.. markers];
    }

    private static PhaseMarker MarkerOf(OperationPhase phase, PhaseEdge edge) => Markers[((int)phase * 2) + (int)edge];

    private static KnownStep Known(Body body) => new(body.ToText());

    private static TraceMessage? FinalizeStep(Body body, ReadOnlySpan<char> rest) =>
        IsEnd(rest) ? MarkerOf(OperationPhase.Finalize, PhaseEdge.Begin)
        : LooseEdge(rest) == PhaseEdge.End ? Known(body)
        : null;

    // "Planning begins", "Planning is complete", "Recovery is starting", "Redo complete (elapsed = 3 ms)".
    private static PhaseEdge? LooseEdge(ReadOnlySpan<char> rest)
    {
        if (IsEnd(rest))
        {
            return PhaseEdge.Begin;
        }

        var cursor = new Cursor(rest);
        cursor.SkipWhiteSpace();
        cursor.Word("is");
        cursor.SkipWhiteSpace();
        foreach (var word in BeginWords)
        {
            if (cursor.PeekWord(word) && IsEnd(cursor.Rest[word.Length..]))
            {
                return PhaseEdge.Begin;
            }
        }

        foreach (var word in EndWords)
        {
            if (cursor.PeekWord(word) && IsEnd(cursor.Rest[word.Length..]))
            {
                return PhaseEdge.End;
            }
        }

        return null;
    }

    private static readonly ImmutableArray<string> BeginWords = ["begins", "begin", "beginning", "started", "starting"];

    private static readonly ImmutableArray<string> EndWords = ["complete", "completed", "done", "finished"];
}
