using System.Runtime.ExceptionServices;
using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// The <c>file</c> transport: tails the capture session's event_file target through an
/// <see cref="IEventFileReader"/>. Each <see cref="Open"/> is one connection of a
/// <see cref="ResilientLiveSource"/>; the position survives between connections, so a reconnect resumes exactly
/// after the last row handed on: nothing skipped, nothing repeated.
/// </summary>
/// <remarks>
/// A checkpoint moves to an offset only once every row of it has been handed on. Rows of an offset whose
/// handing on was interrupted are counted, and a resume skips exactly that many of them (the rows of a buffer
/// are in the file for good, in the same order). A resume never promotes a partly read offset to complete on
/// the grounds that a read ended, so each poll re-reads the rows of the last buffer once.
/// </remarks>
internal sealed class EventFileTail : ILiveEventStreamFactory
{
    private readonly IEventFileReader _reader;
    private readonly EventFileTailOptions _options;
    private readonly TimeProvider _time;
    private readonly ILiveSourceObserver? _observer;
    private readonly XeEventDataReader _parser = new();
    private readonly Lock _gate = new();
    private readonly Queue<Segment> _segments = new();
    private readonly List<EventFileGap> _gaps = [];
    private readonly EventFileCheckpoint _start;
    private readonly Func<CancellationToken, Task>? _checkSession;
    private readonly Func<CancellationToken, Task<string?>>? _currentFile;

    private EventFilePosition? _after;
    private EventFilePosition? _partial;
    private int _partialRows;
    private DateTime? _lastEventUtc;
    private long _handed;
    private Segment? _current;
    private (EventFilePosition? LastRead, DateTime? LastEventUtc, string MissingFile, EventFileGapCause Cause)? _gapOpen;

    // Set after a damaged file: reading goes on from the start of this file until a position in it is complete.
    private string? _startFile;

    public EventFileTail(
        IEventFileReader reader,
        EventFileCheckpoint? start = null,
        EventFileTailOptions? options = null,
        TimeProvider? timeProvider = null,
        ILiveSourceObserver? observer = null,
        Func<CancellationToken, Task>? checkSession = null,
        Func<CancellationToken, Task<string?>>? currentFile = null)
    {
        ArgumentNullException.ThrowIfNull(reader);
        _options = options ?? new EventFileTailOptions();
        var problems = _options.Validate();
        if (problems.Count > 0)
        {
            throw new ArgumentException("Invalid event file tail options: " + string.Join(" ", problems));
        }

        _reader = reader;
        _checkSession = checkSession;
        _currentFile = currentFile;
        _time = timeProvider ?? TimeProvider.System;
        _observer = observer;
        _start = start ?? EventFileCheckpoint.Start;
        _after = _start.After;
        _partial = _start.Partial;
        _partialRows = _start.Partial is null ? 0 : _start.PartialRows;
        _lastEventUtc = _start.LastEventUtc;
    }

    /// <summary>Rows that could not be parsed, each located by file and offset.</summary>
    public SourceStatus Problems { get; } = new();

    /// <summary>Events handed on since this tail was created.</summary>
    public long Handed
    {
        get
        {
            lock (_gate)
            {
                return _handed;
            }
        }
    }

    /// <summary>Every gap met so far, oldest first.</summary>
    public IReadOnlyList<EventFileGap> Gaps
    {
        get
        {
            lock (_gate)
            {
                return _gaps.ToList();
            }
        }
    }

    /// <summary>Where a tail resumes to continue exactly after the last event handed on so far.</summary>
    public EventFileCheckpoint Current
    {
        get
        {
            lock (_gate)
            {
                return new EventFileCheckpoint(_after, _partial, _partialRows, _lastEventUtc);
            }
        }
    }

    /// <summary>
    /// Where a tail resumes to continue exactly after the <paramref name="handed"/>-th event this tail handed
    /// on (1 = the first), the event's timestamp given by the caller. Positions of events before it are
    /// forgotten, so call it with a count that never goes down (the consumer's count of events taken).
    /// </summary>
    public EventFileCheckpoint CheckpointAfter(long handed, DateTime eventTimestamp)
    {
        lock (_gate)
        {
            if (handed <= 0)
            {
                return _start;
            }

            while (_segments.TryPeek(out var oldest) && oldest.FirstSeq + oldest.Handed <= handed && _segments.Count > 1)
            {
                _segments.Dequeue();
            }

            if (!_segments.TryPeek(out var segment) || handed < segment.FirstSeq || handed >= segment.FirstSeq + segment.Handed)
            {
                throw new ArgumentOutOfRangeException(nameof(handed), handed, $"No event {handed} was handed on by this tail ({_handed} so far).");
            }

            return new EventFileCheckpoint(segment.Before, segment.Offset, segment.RowOf(handed), eventTimestamp);
        }
    }

    public ILiveEventStream Open(Action onConnected) => new Connection(this, onConnected);

    private void Notify(LiveSourceChange change)
    {
        try
        {
            _observer?.OnChange(change);
        }
        catch (Exception)
        {
            // As in ResilientLiveSource: an observer's trouble never ends the capture.
        }
    }

    /// <summary>The reading position's file is gone: start again at the oldest file, and name the gap at the first row.</summary>
    private void OpenGap(string missingFile)
    {
        lock (_gate)
        {
            _gapOpen ??= (_partial ?? _after, _lastEventUtc, missingFile, EventFileGapCause.RolledOver);
            _after = null;
            _partial = null;
            _partialRows = 0;
            _current = null;
            _startFile = null;
        }
    }

    /// <summary>
    /// The server read no further from a file with a damaged buffer (error 25736): go on at the start of the
    /// target's current file when that is a later one, and name the gap at the first row read there. False when
    /// there is no later file yet (the damaged one is being written): the caller retries as for any transient error.
    /// </summary>
    private async Task<bool> SkipDamagedAsync(EventFileDamagedException damaged, CancellationToken cancellationToken)
    {
        if (_currentFile is null)
        {
            return false;
        }

        var current = await _currentFile(cancellationToken).ConfigureAwait(false);
        lock (_gate)
        {
            var file = damaged.FileName ?? _partial?.FileName ?? _after?.FileName;
            if (current is null || (file is not null && !SqlEventFileReader.IsLaterFile(current, file)))
            {
                return false;
            }

            _gapOpen ??= (_partial ?? _after, _lastEventUtc, file ?? "the oldest file", EventFileGapCause.DamagedBuffer);
            _after = null;
            _partial = null;
            _partialRows = 0;
            _current = null;
            _startFile = current;
            return true;
        }
    }

    /// <summary>
    /// A whole read of the start file ended: every buffer in it so far has been read whole (the server writes a
    /// buffer at once), so its last offset is complete and reading goes on from there over every file again.
    /// </summary>
    private void LeaveStartFile()
    {
        lock (_gate)
        {
            if (_startFile is null || _after is not null || _partial is null)
            {
                return;
            }

            _after = _partial;
            _partial = null;
            _partialRows = 0;
            _startFile = null;
        }
    }

    /// <summary>The rows of one offset handed on by this tail: enough to turn an event count back into a position.</summary>
    private sealed class Segment(EventFilePosition? before, EventFilePosition offset, long firstSeq, int rowsBefore)
    {
        private List<int>? _skippedRows;

        public EventFilePosition? Before { get; } = before;

        public EventFilePosition Offset { get; } = offset;

        public long FirstSeq { get; } = firstSeq;

        public int Handed { get; set; }

        /// <summary>A row of this offset (1-based) that gave no event: unparsable or not analysed.</summary>
        public void Skip(int row) => (_skippedRows ??= []).Add(row);

        /// <summary>How many rows of the offset precede and include the event numbered <paramref name="seq"/>.</summary>
        public int RowOf(long seq)
        {
            var row = rowsBefore + (int)(seq - FirstSeq) + 1;
            foreach (var skipped in _skippedRows ?? [])
            {
                if (skipped <= row)
                {
                    row++;
                }
            }

            return row;
        }
    }

    private sealed class Connection(EventFileTail tail, Action onConnected) : ILiveEventStream
    {
        private int _seenInPartial;

        public async Task ReadAsync(Func<TraceEvent, ValueTask> onEvent, CancellationToken cancellationToken)
        {
            var connected = false;
            var emptyReads = 0;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                EventFilePosition? after;
                string? startFile;
                lock (tail._gate)
                {
                    after = tail._after;
                    startFile = after is null ? tail._startFile : null;
                }

                _seenInPartial = 0;
                var rows = 0;
                var fresh = 0;
                try
                {
                    var read = startFile is null
                        ? tail._reader.ReadAsync(after, tail._options.BatchSize, cancellationToken)
                        : tail._reader.ReadFileAsync(startFile, tail._options.BatchSize, cancellationToken);
                    await foreach (var row in read.ConfigureAwait(false))
                    {
                        if (!connected)
                        {
                            connected = true;
                            onConnected();
                        }

                        rows++;
                        if (await HandleAsync(row, onEvent).ConfigureAwait(false))
                        {
                            fresh++;
                        }
                    }
                }
                catch (EventFileMissingException missing) when (after is not null)
                {
                    tail.OpenGap(missing.FileName);
                    continue;
                }
                catch (EventFileDamagedException damaged)
                {
                    if (!await tail.SkipDamagedAsync(damaged, cancellationToken).ConfigureAwait(false))
                    {
                        ExceptionDispatchInfo.Throw(damaged.InnerException ?? damaged);
                    }

                    continue;
                }

                if (startFile is not null && rows < tail._options.BatchSize)
                {
                    tail.LeaveStartFile();
                }

                if (!connected)
                {
                    connected = true;
                    onConnected();
                }

                if (rows < tail._options.BatchSize)
                {
                    // Throws (e.g. CaptureSessionGoneException) when the session is no longer running.
                    // Rows of the last buffer read again every poll are not news.
                    emptyReads = fresh == 0 ? emptyReads + 1 : 0;
                    if (tail._checkSession is not null && tail._options.SessionCheckEveryEmptyReads > 0
                        && emptyReads % tail._options.SessionCheckEveryEmptyReads == 0 && emptyReads > 0)
                    {
                        await tail._checkSession(cancellationToken).ConfigureAwait(false);
                    }

                    await Task.Delay(tail._options.PollInterval, tail._time, cancellationToken).ConfigureAwait(false);
                }
            }
        }

        /// <summary>Hands the row's event on; false when the row had been handed on before.</summary>
        private async ValueTask<bool> HandleAsync(EventFileRow row, Func<TraceEvent, ValueTask> onEvent)
        {
            var position = row.Position;
            Segment segment;
            lock (tail._gate)
            {
                if (position == tail._partial)
                {
                    _seenInPartial++;
                    if (_seenInPartial <= tail._partialRows)
                    {
                        // Handed on by an earlier connection (or before a restart): the same row again.
                        return false;
                    }
                }
                else
                {
                    // A new offset begins, so every row of the previous one has been handed on.
                    if (tail._partial is not null)
                    {
                        tail._after = tail._partial;
                    }

                    tail._partial = position;
                    tail._partialRows = 0;
                    _seenInPartial = 1;
                }

                if (tail._current is null || tail._current.Offset != position)
                {
                    tail._current = new Segment(tail._after, position, tail._handed + 1, _seenInPartial - 1);
                    tail._segments.Enqueue(tail._current);
                }

                segment = tail._current;
            }

            var traceEvent = tail._parser.Read(row.EventData, tail.Problems, position.ToString());
            ReportGapIfOpen(position, traceEvent);
            if (traceEvent is null)
            {
                lock (tail._gate)
                {
                    segment.Skip(_seenInPartial);
                    tail._partialRows = _seenInPartial;
                }

                return true;
            }

            // Counted before it is handed on, because the consumer may take it (and ask for its checkpoint) before
            // onEvent returns here; taken back if handing on fails, so that a reconnect hands it on again.
            DateTime? lastBefore;
            lock (tail._gate)
            {
                lastBefore = tail._lastEventUtc;
                segment.Handed++;
                tail._handed++;
                tail._partialRows = _seenInPartial;
                tail._lastEventUtc = traceEvent.Timestamp;
            }

            try
            {
                await onEvent(traceEvent).ConfigureAwait(false);
            }
            catch
            {
                lock (tail._gate)
                {
                    segment.Handed--;
                    tail._handed--;
                    tail._partialRows = _seenInPartial - 1;
                    tail._lastEventUtc = lastBefore;
                }

                throw;
            }

            return true;
        }

        private void ReportGapIfOpen(EventFilePosition resumedAt, TraceEvent? first)
        {
            EventFileGap gap;
            lock (tail._gate)
            {
                if (tail._gapOpen is not { } open)
                {
                    return;
                }

                tail._gapOpen = null;
                gap = new EventFileGap(open.LastRead, open.LastEventUtc, open.MissingFile, resumedAt, first?.Timestamp, open.Cause);
                tail._gaps.Add(gap);
            }

            tail.Problems.Report(gap.MissingFile, gap.Describe());
            tail.Notify(new LiveSourceChange.EventsLost(gap.Describe()));
        }
    }
}
