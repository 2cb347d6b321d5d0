using System.Collections.Immutable;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
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
public sealed class TraceMessageParser
{
    private delegate TraceMessage? Rule(Body body, ReadOnlySpan<char> rest);

    // A class, not a struct: the LINQ that builds the buckets then runs the framework's precompiled shared code
    // instead of being JIT-compiled for a value type at every start-up (about 5 % of a tiny analyze's CPU time).
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
    /// The event's <see cref="ParsedProgressTraceEvent.Parsed"/> is what <see cref="Parse"/> gives for the same text, and
    /// its <see cref="ProgressTraceEvent.Message"/>, written back only if asked for, is the text character for
    /// character: only a line with no white space around it and no leading zero in its numbers is taken, and
    /// those are exactly the lines that the prefix and the three numbers write back.
    /// </remarks>
    public bool TryServerProgress(
        ReadOnlySpan<char> text, DateTime timestamp, int? sessionId, [NotNullWhen(true)] out ParsedProgressTraceEvent? progress)
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

        progress = new ParsedProgressTraceEvent(timestamp, sessionId, _lastProgressPrefix.Text, new ParsedTraceMessage(database, message));
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

    // A database name is a few characters: a plain loop finds its ')' sooner than a vectorised search is set up
    // (IndexOf was a tenth of the time of reading a percent line).
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

    private static TraceMessage? ParseOperationLine(Body body, ReadOnlySpan<char> rest, OperationKind kind)
    {
        var cursor = new Cursor(rest);
        cursor.SkipWhiteSpace();
        if (cursor.Word("failed"))
        {
            return new OperationFailed(kind, body.ToText());
        }

        var processed = IndexOfIgnoreCase(rest, "successfully processed");
        if (processed >= 0)
        {
            return ParseCompletion(kind, rest[..processed], rest[(processed + "successfully processed".Length)..]);
        }

        var abnormally = IndexOfIgnoreCase(rest, "is terminating abnormally");
        if (abnormally >= 0 || rest.Contains("abnormally", StringComparison.OrdinalIgnoreCase))
        {
            return new OperationFailed(kind, body.ToText(), abnormally > 0 ? ScopeOf(rest[..abnormally]) : null);
        }

        var words = TrimEnd(rest);
        if (EndsWithWord(words, "started", out var head))
        {
            return ScopeOf(head) is { } scope ? new OperationStarted(kind, scope) : null;
        }

        if (EndsWithWord(words, "finished", out head))
        {
            return new OperationFinished(kind, ScopeOf(head));
        }

        return null;
    }

    // "BACKUP DATABASE", "BACKUP LOG", "BACKUP DATABASE WITH DIFFERENTIAL", "BACKUP DATABASE...FILE=<name>".
    private static OperationScope? ScopeOf(ReadOnlySpan<char> head)
    {
        head = head.Trim();
        if (head.StartsWith("LOG", StringComparison.OrdinalIgnoreCase)
            && (head.Length == 3 || !char.IsLetterOrDigit(head[3])))
        {
            return OperationScope.Log;
        }

        if (!head.StartsWith("DATABASE", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        var tail = head["DATABASE".Length..];
        if (tail.Contains("DIFFERENTIAL", StringComparison.OrdinalIgnoreCase))
        {
            return OperationScope.Differential;
        }

        return tail.Contains("FILE", StringComparison.OrdinalIgnoreCase) ? OperationScope.File : OperationScope.Database;
    }

    // "... successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec)."
    private static TraceMessage? ParseCompletion(OperationKind kind, ReadOnlySpan<char> head, ReadOnlySpan<char> tail)
    {
        if (ScopeOf(head) is not { } scope)
        {
            return null;
        }

        var cursor = new Cursor(tail);
        if (cursor.Long() is not { } pages || !cursor.Word("pages") || !TimedRate(ref cursor, out var seconds, out var rate))
        {
            // Figures no server prints (negative pages, NaN seconds): damage, not another program's line, and the
            // operation still ends here. Words where the figures go ("many pages") stay an unknown line, and so does a
            // line that stops before its rate: the head of a message folded at a width, or a cut the reader locates.
            return tail.TrimStart() is [>= '0' and <= '9' or '-' or '+' or '.', ..] && tail.Contains("MB/sec)", StringComparison.Ordinal)
                ? new ImplausibleValue($"completion line with figures SQL Server does not write ('{Shown(tail.Trim())}')") { Completes = kind, CompletedScope = scope }
                : null;
        }

        return Impossible(pages, seconds, rate, "completion line") is { } impossible
            ? impossible with { Completes = kind, CompletedScope = scope }
            : new CompletionSummary(kind, scope, pages, seconds, rate);
    }

    // A damaged line is quoted in its problem, but not at any length.
    private static string Shown(ReadOnlySpan<char> text) => text.Length <= 80 ? text.ToString() : $"{text[..80]}...";

    // "in 43.967 seconds (1429.096 MB/sec)." to the end of the line: the figures every completion line ends with.
    private static bool TimedRate(ref Cursor cursor, out double seconds, out double rate)
    {
        seconds = rate = 0;
        if (!cursor.Word("in") || cursor.Double() is not { } s || !cursor.Word("seconds") || !cursor.Char('(')
            || cursor.Double() is not { } r || !cursor.Word("MB/sec") || !cursor.Char(')') || !IsEnd(cursor.Rest))
        {
            return false;
        }

        (seconds, rate) = (s, r);
        return true;
    }

    private static ImplausibleValue? Impossible(long? pages, double seconds, double rate, string what) =>
        pages > ServerRanges.MaxPages || seconds > ServerRanges.MaxSeconds || !double.IsFinite(rate)
            ? new ImplausibleValue(
                $"{what} claims {pages?.ToString(CultureInfo.InvariantCulture) ?? "?"} pages in {seconds:R} seconds, beyond what SQL Server can write")
            : null;

    // "... in 0.542 seconds (350.156 MB/sec)" and "... 24266 pages in 1.414 seconds (134.067 MB/sec).": the tail of a
    // completion line as excerpts publish it (real-world S04, S05); the same numbers and range checks as the whole line.
    private static TraceMessage? ParseElidedCompletion(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        var pages = cursor.Long();
        if ((pages is not null && !cursor.Word("pages")) || !TimedRate(ref cursor, out var seconds, out var rate))
        {
            return null;
        }

        return (TraceMessage?)Impossible(pages, seconds, rate, "excerpt's completion figures") ?? new ElidedCompletion(pages, seconds, rate);
    }

    // "RestoreDatabase: Database AdventureWorks"; "RestoreDatabase: Finished" closes it in older 3004 posts.
    private static TraceMessage? ParseLegacyStart(ReadOnlySpan<char> rest, OperationKind kind, OperationScope scope)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':'))
        {
            return null;
        }

        if (cursor.Word("Database"))
        {
            var name = cursor.Rest.Trim();
            return name.IsEmpty ? null : new OperationStarted(kind, scope, name.ToString());
        }

        return cursor.Word("Finished") && IsEnd(cursor.Rest) ? new OperationFinished(kind, scope) : null;
    }

    // "Error: 3041, Severity: 16, State: 1."
    private static OperationFailed? ParseErrorHeader(Body body, ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':') || cursor.Long() is not { } number || !cursor.Char(',')
            || !cursor.Word("Severity") || !cursor.Char(':') || cursor.Long() is not { } severity)
        {
            return null;
        }

        return number is >= 3000 and <= 3999 && severity > 10 ? new OperationFailed(null, body.ToText()) : null;
    }

    // "Msg 845, Level 17, State 1, Line 2" (its text on the next line), "Msg 845, Level 17: text" (the two joined),
    // "Msg 3201, Sev 16, State 1, Line 1 : text" (SQL Agent), "Msg 3201, Level 16, State 1, Server S, Line 1" (sqlcmd),
    // "Msg 3201, text" (CommandExecute). Severities above 25 and error numbers below 1 do not exist.
    private static EngineError? ParseEngineError(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (cursor.Long() is not { } number || number is < 1 or > int.MaxValue || !cursor.Char(','))
        {
            return null;
        }

        int? severity = null;
        var header = false;
        while (true)
        {
            if (cursor.Word("Level") || cursor.Word("Severity") || cursor.Word("Sev"))
            {
                if (cursor.Long() is not { } level || level > 25)
                {
                    return null;
                }

                severity = (int)level;
            }
            else if (cursor.Word("State") || cursor.Word("Line"))
            {
                if (cursor.Long() is null)
                {
                    return null;
                }
            }
            else if (header && (cursor.Word("Server") || cursor.Word("Procedure")))
            {
                var next = cursor.Rest.IndexOfAny(',', ':');
                cursor = new Cursor(next < 0 ? [] : cursor.Rest[next..]);
            }
            else
            {
                break;
            }

            header = true;
            if (!cursor.Char(','))
            {
                break;
            }
        }

        var text = cursor.Rest.Trim();
        if (!header)
        {
            return text.IsEmpty ? null : new EngineError((int)number, null, text.ToString());
        }

        if (!text.IsEmpty && text[0] == ':')
        {
            text = text[1..].Trim();
        }
        else if (!text.IsEmpty)
        {
            return null;
        }

        return new EngineError((int)number, severity, text.IsEmpty ? null : text.ToString());
    }

    // "Memory limit: 2300 MB", "Memory limit: 3325MB", "BufferCount: 7".
    private static TraceMessage? ParseBufferValue(ReadOnlySpan<char> rest, BufferParameter parameter)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':') || cursor.Size() is not { } value || !IsEnd(cursor.Rest))
        {
            return null;
        }

        return value > ServerRanges.MaxBytes ? TooLarge("buffer parameter", value)
            : IsCount(parameter) && value > ServerRanges.MaxBufferCount ? TooMany(parameter.ToString(), value)
            : new BufferParameterLine(parameter, value);
    }

    private static bool IsCount(BufferParameter parameter) => parameter is BufferParameter.BufferCount or BufferParameter.SetsOfBuffers
        or BufferParameter.MediaBufferCount or BufferParameter.EncodeBufferCount or BufferParameter.BuffersPerReadStream or BufferParameter.BuffersPerWriteStream;

    private static ImplausibleValue TooMany(string what, long value) =>
        new($"{what} of {value} is beyond what SQL Server can write (it uses at most {ServerRanges.MaxBufferCount} buffers)");

    // "Effective options: Checksum=1, Compression=1, Encryption=0, BufferCount=7, MaxTransferSize=1024 KB":
    // keys in any order, any of them missing, unknown keys ignored.
    private static TraceMessage? ParseEffectiveOptions(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':'))
        {
            return null;
        }

        bool? checksum = null, compression = null, encryption = null;
        int? bufferCount = null;
        long? maxTransferSize = null;
        var list = cursor.Rest;
        while (!list.IsEmpty)
        {
            var comma = list.IndexOf(',');
            var item = comma < 0 ? list : list[..comma];
            list = comma < 0 ? [] : list[(comma + 1)..];

            var equals = item.IndexOf('=');
            if (equals < 0)
            {
                continue;
            }

            var key = item[..equals].Trim();
            var value = item[(equals + 1)..].Trim();
            if (SameLabel(key, "Checksum"))
            {
                checksum = Flag(value);
            }
            else if (SameLabel(key, "Compression"))
            {
                compression = Flag(value);
            }
            else if (SameLabel(key, "Encryption"))
            {
                encryption = Flag(value);
            }
            else if (SameLabel(key, "BufferCount"))
            {
                if (!long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var n) || n > ServerRanges.MaxBufferCount)
                {
                    return TooMany("BufferCount", long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var big) ? big : long.MaxValue);
                }

                bufferCount = (int)n;
            }
            else if (SameLabel(key, "MaxTransferSize"))
            {
                var size = new Cursor(value);
                maxTransferSize = size.Size() is { } bytes && IsEnd(size.Rest) ? bytes : null;
            }
        }

        if (maxTransferSize > ServerRanges.MaxBytes)
        {
            return TooLarge("MaxTransferSize", maxTransferSize.Value);
        }

        return new EffectiveOptions(checksum, compression, encryption, bufferCount, maxTransferSize);
    }

    private static bool? Flag(ReadOnlySpan<char> value) =>
        value.Equals("1", StringComparison.Ordinal) || value.Equals("on", StringComparison.OrdinalIgnoreCase)
            || value.Equals("true", StringComparison.OrdinalIgnoreCase) ? true
        : value.Equals("0", StringComparison.Ordinal) || value.Equals("off", StringComparison.OrdinalIgnoreCase)
            || value.Equals("false", StringComparison.OrdinalIgnoreCase) ? false
        : null;

    // "Estimated total size = 95303680 bytes (data size = 95289344 bytes, log size = 14336 bytes)".
    private static TraceMessage? ParseEstimatedSize(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char('=') || cursor.Size() is not { } total)
        {
            return null;
        }

        var data = SizeAfter(cursor.Rest, "data size");
        var log = SizeAfter(cursor.Rest, "log size");
        if (Math.Max(total, Math.Max(data ?? 0, log ?? 0)) is var largest && largest > ServerRanges.MaxBytes)
        {
            return TooLarge("estimated size", largest);
        }

        return new EstimatedSize(total, data, log);
    }

    private static long? SizeAfter(ReadOnlySpan<char> text, string label)
    {
        var at = IndexOfIgnoreCase(text, label);
        if (at < 0)
        {
            return null;
        }

        var cursor = new Cursor(text[(at + label.Length)..]);
        return cursor.Char('=') ? cursor.Size() : null;
    }

    // "1 percent (1048576/95303680 bytes) processed".
    private static TraceMessage? ParsePercent(ReadOnlySpan<char> text)
    {
        if (TryServerPercent(text, out var written, out _))
        {
            return written;
        }

        var cursor = new Cursor(text);
        if (cursor.Long() is not { } percent || percent > 100 || !cursor.Word("percent"))
        {
            return null;
        }

        // The client's STATS line has no byte counts: "10 percent processed."
        cursor.SkipWhiteSpace();
        if (cursor.Word("processed"))
        {
            return IsEnd(cursor.Rest) ? new PercentReached((int)percent) : null;
        }

        if (!cursor.Char('(')
            || cursor.Long() is not { } bytes || !cursor.Char('/') || cursor.Long() is not { } total
            || !cursor.Word("bytes") || !cursor.Char(')') || !cursor.Word("processed") || !IsEnd(cursor.Rest))
        {
            return null;
        }

        if (Math.Max(bytes, total) > ServerRanges.MaxBytes)
        {
            return TooLarge("progress line", Math.Max(bytes, total));
        }

        return new PercentProcessed((int)percent, bytes, total);
    }

    // "1 percent (1048576/95303680 bytes) processed" exactly as the server writes it, which is most lines of a
    // trace flag 3014 log (two in three of a log of back-to-back backups): read with its punctuation fixed, in one
    // pass, instead of word by word. Any other spacing or case returns false and is read by ParsePercent's
    // general rule, which accepts this form too and gives the same result (the range checks are the same).
    // canonical: no number has a leading zero, so that the numbers alone write the text back.
    private static bool TryServerPercent(ReadOnlySpan<char> text, out TraceMessage? message, out bool canonical)
    {
        message = null;
        canonical = false;
        const string afterPercent = " percent (";
        var percent = Digits(text, out var read);
        if (read == 0 || !text[read..].StartsWith(afterPercent))
        {
            return false;
        }

        var leadingZero = read > 1 && text[0] == '0';
        var rest = text[(read + afterPercent.Length)..];
        var bytes = Digits(rest, out read);
        if (read == 0 || read == rest.Length || rest[read] != '/')
        {
            return false;
        }

        leadingZero |= read > 1 && rest[0] == '0';
        rest = rest[(read + 1)..];
        var total = Digits(rest, out read);
        if (read == 0 || !rest[read..].SequenceEqual(ServerPercentTail))
        {
            return false;
        }

        leadingZero |= read > 1 && rest[0] == '0';
        canonical = !leadingZero;

        message = percent > 100 ? null
            : Math.Max(bytes, total) > ServerRanges.MaxBytes ? TooLarge("progress line", Math.Max(bytes, total))
            : new PercentProcessed((int)percent, bytes, total);
        return true;
    }

    /// <summary>
    /// The number the leading ASCII digits of <paramref name="text"/> write, <see cref="long.MaxValue"/> when it is
    /// larger; <paramref name="count"/> is how many digits there were (0: none, and the value is 0).
    /// </summary>
    private static long Digits(ReadOnlySpan<char> text, out int count)
    {
        // Digit by digit rather than through long.TryParse, which looks up the culture's number format on every
        // call: three numbers on each of a million percent lines (docs/performance.md). The count is kept in a local and
        // stored once: counted in the out parameter, every digit was a store to memory, and this loop was a fifth
        // of the time of reading a percent line.
        long value = 0;
        var i = 0;

        // Eighteen digits cannot overflow a long, so they need no check.
        var unchecked18 = Math.Min(text.Length, 18);
        for (; i < unchecked18; i++)
        {
            var digit = (uint)(text[i] - '0');
            if (digit > 9)
            {
                count = i;
                return value;
            }

            value = (value * 10) + digit;
        }

        for (; i < text.Length; i++)
        {
            var digit = (uint)(text[i] - '0');
            if (digit > 9)
            {
                break;
            }

            // More digits than a long holds is still a number, only an impossible one: saturate so that the
            // rule's range check reports it instead of the line passing for an unknown message.
            value = value < long.MaxValue / 10 || (value == long.MaxValue / 10 && digit <= long.MaxValue % 10)
                ? (value * 10) + digit
                : long.MaxValue;
        }

        count = i;
        return value;
    }

    private static DataFileReaders? ParseReaders(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        return cursor.Char('=') && cursor.Long() is { } count && count <= int.MaxValue && IsEnd(cursor.Rest)
            ? new DataFileReaders((int)count)
            : null;
    }

    // "BackupStream(0): Writing leading metadata to the device D:\x.bak" names a stripe; the other
    // BackupStream(n) lines (MSDA size, padding, totals) are per-stream detail with nothing to measure yet.
    private static TraceMessage? ParseBackupStream(Body body, ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char('(') || cursor.Long() is not { } stream || stream > int.MaxValue || !cursor.Char(')')
            || !cursor.Char(':'))
        {
            return null;
        }

        cursor.SkipWhiteSpace();
        var consumed = MatchPhrase(cursor.Rest, "Writing leading metadata to the device");
        if (consumed >= 0 && PathOf(cursor.Rest[consumed..]) is { } path)
        {
            return new BackupDeviceNamed((int)stream, path);
        }

        // "Starting MSDA of size 384 extents" (2008 R2), "Writing MSDA of size 1296 extents" (2014).
        var msda = MatchPhrase(cursor.Rest, "Starting MSDA of size");
        if (msda < 0)
        {
            msda = MatchPhrase(cursor.Rest, "Writing MSDA of size");
        }

        if (msda >= 0)
        {
            var size = new Cursor(cursor.Rest[msda..]);
            if (size.Long() is { } extents && size.Word("extents") && IsEnd(size.Rest))
            {
                return new MsdaStarted((int)stream, extents);
            }
        }

        return Known(body);
    }

    // "Zeroing D:\x_log.ldf from page 1 to 64000 (0x2000 to 0x1f400000)": the path may hold spaces, so the
    // last " from page " splits it.
    private static TraceMessage? ParseZeroing(ReadOnlySpan<char> rest)
    {
        var at = LastIndexOfIgnoreCase(rest, " from page ");
        if (at < 0)
        {
            return null;
        }

        var path = rest[..at].Trim();
        var cursor = new Cursor(rest[(at + " from page ".Length)..]);
        if (path.IsEmpty || cursor.Long() is not { } from || !cursor.Word("to") || cursor.Long() is not { } to)
        {
            return null;
        }

        if (to < from || to > ServerRanges.MaxPages)
        {
            return new ImplausibleValue($"zeroing line claims pages {from} to {to}, not a range SQL Server can write");
        }

        return new ZeroingStarted(path.ToString(), from, to);
    }

    // "Database backed up. Database: X, creation date(time): 2011/09/15(21:46:19), pages dumped: 3100,
    // first LSN: ..., last LSN: ..., number of dump devices: 1, device information: (FILE=2, TYPE=DISK: {'D:\x.bak'})."
    private static TraceMessage? ParseHistory(ReadOnlySpan<char> rest, OperationKind kind, OperationScope scope)
    {
        var at = IndexOfIgnoreCase(rest, "Database:");
        if (at < 0)
        {
            return null;
        }

        var afterName = rest[(at + "Database:".Length)..];
        var nameEnd = IndexOfIgnoreCase(afterName, ", creation date");
        if (nameEnd < 0)
        {
            nameEnd = afterName.IndexOf(',');
        }

        var name = (nameEnd < 0 ? afterName : afterName[..nameEnd]).Trim();
        if (name.IsEmpty)
        {
            return null;
        }

        var pages = NumberAfter(afterName, "pages dumped");
        if (pages > ServerRanges.MaxPages)
        {
            return new ImplausibleValue($"history line claims {pages} pages dumped, beyond what SQL Server can write");
        }

        var devices = NumberAfter(afterName, "number of dump devices");
        return new HistoryRecord(
            kind,
            scope,
            name.ToString(),
            pages,
            devices is { } n && n <= int.MaxValue ? (int)n : null,
            DevicesOf(afterName));
    }

    private static long? NumberAfter(ReadOnlySpan<char> text, string label)
    {
        var at = IndexOfIgnoreCase(text, label);
        if (at < 0)
        {
            return null;
        }

        var cursor = new Cursor(text[(at + label.Length)..]);
        return cursor.Char(':') ? cursor.Long() : null;
    }

    // "{'a'}", "{'a', 'b'}"; a virtual device is named like "{'{4B4C...}1'}", so a name ends at a quote
    // followed by a comma or a closing brace, not at the first brace.
    private static IReadOnlyList<string> DevicesOf(ReadOnlySpan<char> text)
    {
        var at = IndexOfIgnoreCase(text, "device information");
        if (at < 0)
        {
            return [];
        }

        var devices = new List<string>(1);
        var span = text[at..];
        var i = span.IndexOf('{');
        while (i >= 0)
        {
            i = SkipWhiteSpace(span, i + 1);
            while (i < span.Length && IsQuote(span[i]))
            {
                var nameStart = i + 1;
                var close = -1;
                for (var j = nameStart; j < span.Length; j++)
                {
                    if (!IsQuote(span[j]))
                    {
                        continue;
                    }

                    var next = SkipWhiteSpace(span, j + 1);
                    if (next < span.Length && span[next] is ',' or '}')
                    {
                        close = j;
                        break;
                    }
                }

                if (close < 0)
                {
                    return devices;
                }

                devices.Add(span[nameStart..close].ToString());
                i = SkipWhiteSpace(span, close + 1);
                if (i < span.Length && span[i] == ',')
                {
                    i = SkipWhiteSpace(span, i + 1);
                }
            }

            var nextGroup = i < span.Length ? span[i..].IndexOf('{') : -1;
            i = nextGroup < 0 ? -1 : i + nextGroup;
        }

        return devices;
    }

    private static ImplausibleValue TooLarge(string what, long value) =>
        new($"{what} of {value} bytes is beyond what SQL Server can write");

    // Logs pasted from web pages often carry typographic quotes (the 2008 R2 trace flag 3014 sample in
    // docs/diagnosis.md shows {‘D:\Backs\3014_full.bak’}); they delimit a device name as a straight quote does.
    private static bool IsQuote(char c) => c is '\'' or '\u2018' or '\u2019';

    // "Processed 292888 pages for database 'TestDB', file 'TestDB' on file 1."
    private static TraceMessage? ParseFilePages(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (cursor.Long() is not { } pages || !cursor.Word("pages") || !cursor.Word("for") || !cursor.Word("database")
            || cursor.Quoted() is not { } database || !cursor.Char(',') || !cursor.Word("file")
            || cursor.Quoted() is not { } file)
        {
            return null;
        }

        if (pages > ServerRanges.MaxBytes / 8192)
        {
            return new ImplausibleValue($"file line claims {pages} pages, beyond what SQL Server can write");
        }

        int? position = null;
        if (cursor.Word("on") && cursor.Word("file"))
        {
            position = cursor.Long() is { } n && n <= int.MaxValue ? (int)n : null;
        }

        return IsEnd(cursor.Rest) ? new FilePagesProcessed(database, file, pages, position) : null;
    }

    // "Converting database 'D' from version 904 to the current version 957."
    private static DatabaseUpgrade? ParseUpgrade(ReadOnlySpan<char> rest, bool isStep)
    {
        var cursor = new Cursor(rest);
        if (cursor.Quoted() is not { } database)
        {
            return null;
        }

        return UpgradeVersions(ref cursor, database, isStep);
    }

    // "Database 'D' running the upgrade step from version 904 to version 905." (the phrase consumed "Database '").
    private static DatabaseUpgrade? ParseUpgradeStep(ReadOnlySpan<char> rest)
    {
        var close = rest.IndexOf('\'');
        if (close <= 0)
        {
            return null;
        }

        var cursor = new Cursor(rest[(close + 1)..]);
        return cursor.Word("running the upgrade step") ? UpgradeVersions(ref cursor, rest[..close].ToString(), isStep: true) : null;
    }

    // "Database 'D' acquired suspend locks in session 149." and the other T-SQL snapshot steps (the phrase consumed "Database '").
    private static SnapshotStep? ParseSuspendStep(ReadOnlySpan<char> rest)
    {
        var close = rest.IndexOf('\'');
        if (close <= 0)
        {
            return null;
        }

        var cursor = new Cursor(rest[(close + 1)..]);
        SnapshotEvent step;
        if (cursor.Word("acquired suspend locks"))
        {
            step = SnapshotEvent.SuspendLocksAcquired;
        }
        else if (cursor.Word("released suspend locks"))
        {
            step = SnapshotEvent.SuspendLocksReleased;
        }
        else if (cursor.Word("successfully suspended for snapshot backup"))
        {
            step = SnapshotEvent.Suspended;
        }
        else if (cursor.Word("originally suspended for snapshot backup") && cursor.Rest.Contains("successfully resumed", StringComparison.OrdinalIgnoreCase))
        {
            step = SnapshotEvent.Resumed;
        }
        else
        {
            return null;
        }

        return new SnapshotStep(rest[..close].ToString(), step);
    }

    // "I/O is frozen on database TPCC100. No user action is required. ..." (the phrase consumed the words before the name):
    // the name runs to the sentence's end.
    private static SnapshotStep? ParseFreeze(ReadOnlySpan<char> rest, SnapshotEvent step)
    {
        var name = rest.Trim();
        var end = name.IndexOf(". ", StringComparison.Ordinal);
        name = end >= 0 ? name[..end] : name.TrimEnd('.');
        return name.IsEmpty || name.Contains(' ') ? null : new SnapshotStep(name.ToString(), step);
    }

    // "The database 'X' is marked RESTORING and is in a state that does not allow recovery to be run." (the phrase
    // consumed "The database '").
    private static DatabaseMarkedRestoring? ParseMarkedRestoring(ReadOnlySpan<char> rest)
    {
        var close = rest.IndexOf('\'');
        if (close <= 0)
        {
            return null;
        }

        var cursor = new Cursor(rest[(close + 1)..]);
        return cursor.Word("is marked RESTORING") ? new DatabaseMarkedRestoring(rest[..close].ToString()) : null;
    }

    private static DatabaseUpgrade? UpgradeVersions(ref Cursor cursor, string database, bool isStep)
    {
        if (!cursor.Word("from") || !cursor.Word("version") || cursor.Long() is not { } from || !cursor.Word("to"))
        {
            return null;
        }

        cursor.Word("the current");
        if (!cursor.Word("version") || cursor.Long() is not { } to || !IsEnd(cursor.Rest) || from > int.MaxValue || to > int.MaxValue)
        {
            return null;
        }

        return new DatabaseUpgrade(database, (int)from, (int)to, isStep);
    }

    private static string? PathOf(ReadOnlySpan<char> rest)
    {
        var path = rest.Trim();
        return path.IsEmpty ? null : path.ToString();
    }

    /// <summary>
    /// Length of <paramref name="text"/> that <paramref name="phrase"/> covers, or -1. Case-insensitive; a space in
    /// the phrase stands for any run of white space; a phrase ending in a letter or digit must end a word.
    /// </summary>
    private static int MatchPhrase(ReadOnlySpan<char> text, string phrase)
    {
        int t;
        if (text.StartsWith(phrase))
        {
            // The server's own wording, case and single spaces: one comparison of the whole phrase instead of a
            // test per character. Any other case or spacing is read below as before.
            t = phrase.Length;
        }
        else
        {
            t = 0;
            foreach (var p in phrase)
            {
                if (p == ' ')
                {
                    if (t >= text.Length || !char.IsWhiteSpace(text[t]))
                    {
                        return -1;
                    }

                    t = SkipWhiteSpace(text, t);
                    continue;
                }

                if (t >= text.Length || !SameAsciiLetter(text[t], p))
                {
                    return -1;
                }

                t++;
            }
        }

        if (t < text.Length && char.IsLetterOrDigit(phrase[^1]) && char.IsLetterOrDigit(text[t]))
        {
            return -1;
        }

        return t;
    }

    // Phrases are ASCII, so ordinal ignore-case reduces to folding the 0x20 bit of letters.
    private static bool SameAsciiLetter(char c, char phraseChar)
    {
        if (c == phraseChar)
        {
            return true;
        }

        var folded = (uint)(c | 0x20);
        return folded - 'a' <= 'z' - 'a' && folded == (uint)(phraseChar | 0x20);
    }

    // Nothing left but an optional period, or a parenthesised detail such as "(elapsed = 90 ms)".
    private static bool IsEnd(ReadOnlySpan<char> rest)
    {
        rest = rest.Trim();
        if (rest.EndsWith('.'))
        {
            rest = rest[..^1].TrimEnd();
        }

        return rest.IsEmpty || (rest[0] == '(' && rest[^1] == ')');
    }

    private static bool SameLabel(ReadOnlySpan<char> text, string label) => MatchPhrase(text, label) == text.Length;

    private static ReadOnlySpan<char> TrimEnd(ReadOnlySpan<char> text)
    {
        text = text.Trim();
        return text.EndsWith('.') ? text[..^1].TrimEnd() : text;
    }

    private static bool EndsWithWord(ReadOnlySpan<char> text, string word, out ReadOnlySpan<char> head)
    {
        head = default;
        if (!text.EndsWith(word, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        head = text[..^word.Length];
        return head.IsEmpty || char.IsWhiteSpace(head[^1]);
    }

    private static int IndexOfIgnoreCase(ReadOnlySpan<char> text, string value) =>
        text.IndexOf(value, StringComparison.OrdinalIgnoreCase);

    private static int LastIndexOfIgnoreCase(ReadOnlySpan<char> text, string value) =>
        text.LastIndexOf(value, StringComparison.OrdinalIgnoreCase);

    // char.IsWhiteSpace is false for every character from '!' up to U+0084 (the next white space is U+0085).
    private static bool MayBeWhiteSpace(char c) => (uint)(c - '!') >= 0x85 - '!';

    private static int SkipWhiteSpace(ReadOnlySpan<char> text, int i)
    {
        while (i < text.Length && char.IsWhiteSpace(text[i]))
        {
            i++;
        }

        return i;
    }

    /// <summary>The message after any "Backup(db): " prefix, as a window on the original string.</summary>
    private readonly ref struct Body(string source, int start, int length)
    {
        public ReadOnlySpan<char> Span => source.AsSpan(start, length);

        public string ToText() => start == 0 && length == source.Length ? source : source.Substring(start, length);
    }

    /// <summary>Reads words, punctuation and numbers off a span, skipping white space before each.</summary>
    private ref struct Cursor(ReadOnlySpan<char> text)
    {
        private ReadOnlySpan<char> rest = text;

        public readonly ReadOnlySpan<char> Rest => rest;

        public void SkipWhiteSpace()
        {
            // Most calls find a word or a digit, not a space: test for that before TrimStart's loop.
            if (!rest.IsEmpty && !MayBeWhiteSpace(rest[0]))
            {
                return;
            }

            rest = rest.TrimStart();
        }

        public bool Char(char c)
        {
            SkipWhiteSpace();
            if (rest.IsEmpty || rest[0] != c)
            {
                return false;
            }

            rest = rest[1..];
            return true;
        }

        public bool Word(string word)
        {
            SkipWhiteSpace();
            var consumed = MatchPhrase(rest, word);
            if (consumed < 0)
            {
                return false;
            }

            rest = rest[consumed..];
            return true;
        }

        public readonly bool PeekWord(string word) => MatchPhrase(rest, word) >= 0;

        // 'name': a quoted name as the client messages print it (no doubling inside, the server writes it raw).
        public string? Quoted()
        {
            SkipWhiteSpace();
            if (rest.IsEmpty || rest[0] != '\'')
            {
                return null;
            }

            var close = rest[1..].IndexOf('\'');
            if (close < 0)
            {
                return null;
            }

            var name = rest.Slice(1, close).ToString();
            rest = rest[(close + 2)..];
            return name;
        }

        public long? Long()
        {
            SkipWhiteSpace();
            var value = Digits(rest, out var digits);
            if (digits == 0)
            {
                return null;
            }

            rest = rest[digits..];
            return value;
        }

        public double? Double()
        {
            SkipWhiteSpace();
            var length = 0;
            while (length < rest.Length && (char.IsAsciiDigit(rest[length]) || rest[length] == '.'))
            {
                length++;
            }

            if (length == 0
                || !double.TryParse(rest[..length], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value))
            {
                return null;
            }

            rest = rest[length..];
            return value;
        }

        // A number with an optional unit: "2300 MB", "3325MB", "1024 KB", "95303680 bytes"; no unit = as is.
        public long? Size()
        {
            if (Long() is not { } number)
            {
                return null;
            }

            var unit = rest.TrimStart();
            long scale;
            int length;
            if (StartsUnit(unit, "bytes"))
            {
                (scale, length) = (1, 5);
            }
            else if (StartsUnit(unit, "KB"))
            {
                (scale, length) = (1024, 2);
            }
            else if (StartsUnit(unit, "MB"))
            {
                (scale, length) = (1024 * 1024, 2);
            }
            else if (StartsUnit(unit, "GB"))
            {
                (scale, length) = (1024 * 1024 * 1024, 2);
            }
            else
            {
                return number;
            }

            rest = unit[length..];
            return number > long.MaxValue / scale ? long.MaxValue : number * scale;
        }

        private static bool StartsUnit(ReadOnlySpan<char> text, string unit) =>
            text.StartsWith(unit, StringComparison.OrdinalIgnoreCase)
            && (text.Length == unit.Length || !char.IsLetterOrDigit(text[unit.Length]));
    }
}
