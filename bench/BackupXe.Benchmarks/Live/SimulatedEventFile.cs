using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using System.Xml;
using BackupXe.Testing.Tds;

namespace BackupXe.Benchmarks.Live;

/// <summary>
/// The event_file of a capture session on a server running one backup after another: the sample capture's
/// <c>event_data</c> rows (the real XE XML format; 7001 of its 7150 events are BACKUPBUFFER-style wait_info) played
/// in a loop at a steady rate, each row stamped with the wall-clock moment it is emitted. It answers the
/// <c>file</c> transport's query as <c>sys.fn_xe_file_target_read_file</c> would: rows after
/// (<c>@initial_file_name</c>, <c>@initial_offset</c>) exclusive, at most <c>@batch</c>, 37 rows per 64 KB buffer.
/// What it does not model: the server's own dispatch latency (a row is visible the moment it is emitted; the
/// session adds up to MAX_DISPATCH_LATENCY = 2 s on a real server), rollover, and the server's CPU.
/// </summary>
public sealed class SimulatedEventFile
{
    public const string FileName = @"C:\MSSQL\Log\BackupXe_0_133589000000000000.xel";
    private const int RowsPerBuffer = 37;
    private const long FirstOffset = 5_632;
    private const long BufferBytes = 65_536;

    private readonly IReadOnlyList<(string Before, string After)> _templates;
    private readonly double _rowsPerSecond;
    private readonly DateTime _startUtc;
    private readonly long _startTimestamp;
    private long _served;
    private long _reads;

    public SimulatedEventFile(IReadOnlyList<(string Before, string After)> templates, double rowsPerSecond, DateTime startUtc, long startTimestamp)
    {
        _templates = templates;
        _rowsPerSecond = rowsPerSecond;
        _startUtc = startUtc;
        _startTimestamp = startTimestamp;
    }

    /// <summary>Distinct rows handed to the reader so far (the highest row number served): what the reader has fetched.</summary>
    public long Served => Interlocked.Read(ref _served);

    public long Reads => Interlocked.Read(ref _reads);

    /// <summary>Rows emitted by now.</summary>
    public long Emitted => (long)(Stopwatch.GetElapsedTime(_startTimestamp).TotalSeconds * _rowsPerSecond);

    /// <summary>
    /// Each event_data row of a saved XE XML capture, split around its timestamp attribute's value so that a row can
    /// be stamped with any moment without parsing it again.
    /// </summary>
    public static IReadOnlyList<(string Before, string After)> Templates(string capturePath)
    {
        var templates = new List<(string, string)>();
        using var reader = XmlReader.Create(capturePath, new XmlReaderSettings { IgnoreWhitespace = true });
        reader.MoveToContent();
        reader.Read();
        while (!reader.EOF)
        {
            if (reader.NodeType == XmlNodeType.Element && reader.LocalName == "event")
            {
                var row = reader.ReadOuterXml();
                var stamp = Regex.Match(row, "timestamp=\"([^\"]+)\"").Groups[1];
                templates.Add((row[..stamp.Index], row[(stamp.Index + stamp.Length)..]));
            }
            else
            {
                reader.Read();
            }
        }

        return templates;
    }

    /// <summary>The answer to one read of the <c>file</c> transport.</summary>
    public TdsResponse Read(TdsRequest request)
    {
        Interlocked.Increment(ref _reads);
        var batch = Convert.ToInt64(request.Parameters["@batch"], CultureInfo.InvariantCulture);
        var first = request.Parameters["@initial_file_name"] is string
            ? ((Convert.ToInt64(request.Parameters["@initial_offset"], CultureInfo.InvariantCulture) - FirstOffset) / BufferBytes + 1) * RowsPerBuffer
            : 0;
        var end = Math.Min(Emitted, first + batch);
        var set = new TdsResultSet(TdsColumn.XmlAsNVarChar("event_data"), TdsColumn.NVarChar("file_name", 260), TdsColumn.BigInt("file_offset"));
        for (var row = first; row < end; row++)
        {
            set.Row(EventData(row), FileName, FirstOffset + row / RowsPerBuffer * BufferBytes);
        }

        for (var served = Served; end > served && Interlocked.CompareExchange(ref _served, end, served) != served; served = Served)
        {
        }

        return TdsResponse.Of(set);
    }

    /// <summary>Row <paramref name="row"/>: the template's event with the moment it was emitted as its timestamp.</summary>
    public string EventData(long row)
    {
        var (before, after) = _templates[(int)(row % _templates.Count)];
        var at = _startUtc.AddTicks((long)(row / _rowsPerSecond * TimeSpan.TicksPerSecond));
        return string.Concat(before, at.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture), after);
    }
}
