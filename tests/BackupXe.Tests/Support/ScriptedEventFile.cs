using System.Runtime.CompilerServices;
using System.Xml;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Tests.Cli;

namespace BackupXe.Tests.Support;

/// <summary>
/// An event_file target as <c>sys.fn_xe_file_target_read_file</c> shows it: files of buffers, each buffer a run
/// of rows sharing one offset, read after (file, offset) exclusive as Microsoft documents. Rows are the real
/// <c>event_data</c> XML of a capture. Files can be appended (the server writing), deleted (rollover), and a
/// read can be made to fail after a given number of rows (the connection dropping).
/// </summary>
internal sealed class ScriptedEventFile : IEventFileReader
{
    private readonly List<(string Name, List<EventFileRow> Rows)> _files = [];
    private readonly Lock _gate = new();
    private int _visibleRows = int.MaxValue;
    private readonly Dictionary<string, int> _damaged = [];

    /// <summary>When set, the read fails once this many rows in total (over all reads) have been returned.</summary>
    public Queue<long> FailAfterTotalRows { get; } = new();

    /// <summary>Rows returned over all reads.</summary>
    public long RowsReturned { get; private set; }

    public int Reads { get; private set; }

    /// <summary>The last row any read returned: where a reader that saves "the last row fetched" would resume.</summary>
    public EventFileRow? LastRowReturned { get; private set; }

    /// <summary>Rows the most recent complete read returned (fewer than its batch size: the reader is at the end).</summary>
    public int LastReadRows { get; private set; }

    /// <summary>
    /// The events of <paramref name="eventData"/> laid out as <paramref name="eventsPerBuffer"/> rows per buffer
    /// and <paramref name="buffersPerFile"/> buffers per file, with offsets as the target writes them (multiples of
    /// its buffer size, first buffer after the file header).
    /// </summary>
    public static ScriptedEventFile Of(IReadOnlyList<string> eventData, int eventsPerBuffer, int buffersPerFile, string prefix = "BackupXe_0_")
    {
        var file = new ScriptedEventFile();
        var index = 0;
        for (var fileNumber = 0; index < eventData.Count; fileNumber++)
        {
            var name = $@"C:\XE\{prefix}{133_000_000_000_000_000L + fileNumber}.xel";
            var rows = new List<EventFileRow>();
            for (var buffer = 0; buffer < buffersPerFile && index < eventData.Count; buffer++)
            {
                var offset = 5_632L + buffer * 65_536L;
                for (var i = 0; i < eventsPerBuffer && index < eventData.Count; i++)
                {
                    rows.Add(new EventFileRow(eventData[index++], name, offset));
                }
            }

            file._files.Add((name, rows));
        }

        return file;
    }

    /// <summary>The event_data of every event in a saved XE XML file, each as the function returns it.</summary>
    public static IReadOnlyList<string> EventDataOf(string path)
    {
        var rows = new List<string>();
        using var reader = XmlReader.Create(path, new XmlReaderSettings { IgnoreWhitespace = true });
        reader.MoveToContent();
        reader.Read();
        while (!reader.EOF)
        {
            if (reader.NodeType == XmlNodeType.Element && reader.LocalName == "event")
            {
                rows.Add(reader.ReadOuterXml());
            }
            else
            {
                reader.Read();
            }
        }

        return rows;
    }

    /// <summary>The real-format sample capture: one buffer-starved full backup, 7150 events.</summary>
    public static IReadOnlyList<string> BufferStarvedBackup() => EventDataOf(CliRun.Sample("buffer-starved-backup.xml"));

    public IReadOnlyList<string> FileNames
    {
        get
        {
            lock (_gate)
            {
                return _files.Select(f => f.Name).ToList();
            }
        }
    }

    public int TotalRows
    {
        get
        {
            lock (_gate)
            {
                return _files.Sum(f => f.Rows.Count);
            }
        }
    }

    /// <summary>How many rows the server has written so far (<see cref="WrittenSoFar"/>; all of them unless set).</summary>
    public int WrittenSoFarRows
    {
        get
        {
            lock (_gate)
            {
                return Math.Min(_visibleRows, _files.Sum(f => f.Rows.Count));
            }
        }
    }

    /// <summary>
    /// The server writing more: <paramref name="eventData"/> as new buffers of <paramref name="eventsPerBuffer"/> rows at the
    /// end of the newest file (a first file when there is none).
    /// </summary>
    public void Append(IReadOnlyList<string> eventData, int eventsPerBuffer = 100)
    {
        lock (_gate)
        {
            if (_files.Count == 0)
            {
                _files.Add(($@"C:\XE\BackupXe_0_{133_000_000_000_000_000L}.xel", []));
            }

            var (name, rows) = _files[^1];
            var offset = rows.Count == 0 ? 5_632L - 65_536L : rows[^1].FileOffset;
            for (var i = 0; i < eventData.Count; i++)
            {
                if (i % eventsPerBuffer == 0)
                {
                    offset += 65_536L;
                }

                rows.Add(new EventFileRow(eventData[i], name, offset));
            }
        }
    }

    /// <summary>Only the first <paramref name="rows"/> rows exist yet (the server has written no more).</summary>
    public void WrittenSoFar(int rows)
    {
        lock (_gate)
        {
            _visibleRows = rows;
        }
    }

    /// <summary>
    /// A damaged buffer after the first <paramref name="readableRows"/> rows of <paramref name="fileName"/>: a read
    /// that reaches it returns the rows before it, then fails as the server does (error 25736, nothing more of that file).
    /// </summary>
    public void Damage(string fileName, int readableRows)
    {
        lock (_gate)
        {
            _damaged[fileName] = readableRows;
        }
    }

    /// <summary>The server writes a new file (rollover): <paramref name="eventData"/> in one buffer of a file named after the last one.</summary>
    public string AppendFile(IReadOnlyList<string> eventData)
    {
        lock (_gate)
        {
            var last = _files[^1].Name;
            var number = long.Parse(last[(last.LastIndexOf('_') + 1)..^4], System.Globalization.CultureInfo.InvariantCulture);
            var name = last[..(last.LastIndexOf('_') + 1)] + (number + 1).ToString(System.Globalization.CultureInfo.InvariantCulture) + ".xel";
            _files.Add((name, eventData.Select(e => new EventFileRow(e, name, 5_632L)).ToList()));
            return name;
        }
    }

    /// <summary>The file the target writes now: the newest one.</summary>
    public string CurrentFile
    {
        get
        {
            lock (_gate)
            {
                return _files[^1].Name;
            }
        }
    }

    /// <summary>Rollover: the oldest <paramref name="count"/> files are deleted.</summary>
    public IReadOnlyList<EventFileRow> DeleteOldest(int count)
    {
        lock (_gate)
        {
            var deleted = _files.Take(count).SelectMany(f => f.Rows).ToList();
            _files.RemoveRange(0, count);
            return deleted;
        }
    }

    public async IAsyncEnumerable<EventFileRow> ReadFileAsync(string file, int maxRows, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.Yield();
        foreach (var row in ReadFile(file, maxRows, cancellationToken))
        {
            yield return row;
        }
    }

    public async IAsyncEnumerable<EventFileRow> ReadAsync(
        EventFilePosition? after, int maxRows, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.Yield();
        foreach (var row in Read(after, maxRows, cancellationToken))
        {
            yield return row;
        }
    }

    /// <summary>
    /// <see cref="ReadFileAsync"/> without its yield, for the TDS double's synchronous answers: blocking a thread on the
    /// asynchronous reader there waited for a continuation that could not run (a test hung under the whole suite).
    /// </summary>
    public IEnumerable<EventFileRow> ReadFile(string file, int maxRows, CancellationToken cancellationToken)
    {
        List<EventFileRow> rows;
        lock (_gate)
        {
            Reads++;
            if (_files.All(f => f.Name != file))
            {
                throw new EventFileMissingException(file);
            }

            rows = _files.SelectMany(f => f.Rows).Take(_visibleRows).Where(r => r.FileName == file).ToList();
        }

        var returned = 0;
        foreach (var row in rows.Take(maxRows))
        {
            cancellationToken.ThrowIfCancellationRequested();
            lock (_gate)
            {
                if (_damaged.TryGetValue(file, out var readable) && returned >= readable)
                {
                    throw new EventFileDamagedException(file, new IOException("scripted damaged buffer"));
                }

                RowsReturned++;
                LastRowReturned = row;
            }

            returned++;
            yield return row;
        }

        lock (_gate)
        {
            LastReadRows = returned;
        }
    }

    /// <summary><see cref="ReadAsync"/> without its yield, for the TDS double's synchronous answers (see <see cref="ReadFile"/>).</summary>
    public IEnumerable<EventFileRow> Read(EventFilePosition? after, int maxRows, CancellationToken cancellationToken)
    {
        List<EventFileRow> visible;
        lock (_gate)
        {
            Reads++;
            visible = _files.SelectMany(f => f.Rows).Take(_visibleRows).ToList();
            if (after is not null && _files.All(f => f.Name != after.FileName))
            {
                throw new EventFileMissingException(after.FileName);
            }
        }

        var start = 0;
        if (after is not null)
        {
            var fileStart = visible.FindIndex(r => r.FileName == after.FileName);
            start = fileStart < 0 ? visible.Count : fileStart;
            while (start < visible.Count && visible[start].FileName == after.FileName && visible[start].FileOffset <= after.FileOffset)
            {
                start++;
            }
        }

        var returned = 0;
        for (var i = start; i < visible.Count && returned < maxRows; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            lock (_gate)
            {
                var name = visible[i].FileName;
                if (_damaged.TryGetValue(name, out var readable) && visible.Take(i).Count(r => r.FileName == name) >= readable)
                {
                    throw new EventFileDamagedException(visible[i].FileName, new IOException("scripted damaged buffer"));
                }
            }

            lock (_gate)
            {
                if (FailAfterTotalRows.TryPeek(out var failAt) && RowsReturned >= failAt)
                {
                    FailAfterTotalRows.Dequeue();
                    throw new IOException($"scripted connection drop after {RowsReturned} rows");
                }

                RowsReturned++;
                LastRowReturned = visible[i];
            }

            returned++;
            yield return visible[i];
        }

        lock (_gate)
        {
            LastReadRows = returned;
        }
    }
}
