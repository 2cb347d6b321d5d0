using System.Text.Json;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

public class EventsCommandTests
{
    private static readonly string Xel = Path.Combine(AppContext.BaseDirectory, "Fixtures", "xel", "TestXel_0.xel");

    [Fact]
    public async Task Lists_all_149_fixture_events_with_fields_and_actions_as_json_lines()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", Xel);

        // Then
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Error));
        var lines = run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(149, lines.Length);
        using var first = JsonDocument.Parse(lines[0]);
        var root = first.RootElement;
        Assert.Equal("rpc_completed", root.GetProperty("name").GetString());
        Assert.Equal("2017-10-17T20:37:03.1482054Z", root.GetProperty("timestamp").GetString());
        Assert.Equal(56, root.GetProperty("fields").GetProperty("duration").GetInt64());
        Assert.Equal("OK", root.GetProperty("fields").GetProperty("result").GetString());
        Assert.Equal("sp_prepare", root.GetProperty("fields").GetProperty("object_name").GetString());
        Assert.Equal(182, root.GetProperty("actions").GetProperty("session_id").GetInt32());
        Assert.Equal("SQL Server Data Collector - Controller", root.GetProperty("actions").GetProperty("client_app_name").GetString());
        Assert.All(lines, line => JsonDocument.Parse(line).Dispose());
    }

    [Fact]
    public async Task Writes_csv_rows_of_the_named_event_only()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", Xel, "--format", "csv", "--name", "login");

        // Then: a header and the 4 logins (their option texts hold quoted line breaks)
        Assert.Equal(0, run.ExitCode);
        Assert.StartsWith("timestamp,name,package,", run.Output.ReplaceLineEndings("\n"));
        Assert.Equal(4, run.Output.Split('\n').Count(l => l.Contains(",login,sqlserver,", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task Csv_has_a_column_per_field_then_per_action_in_ordinal_order_with_numbers_as_numbers()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", Xel, "--format", "csv");

        // Then: the fields of every event the metadata declares, then the actions as package.name
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Error));
        var rows = CsvRows(run.Output);
        var header = rows[0];
        Assert.Equal(["timestamp", "name", "package"], header[..3]);
        var fields = header.Skip(3).TakeWhile(c => !c.Contains('.', StringComparison.Ordinal)).ToList();
        var actions = header.Skip(3 + fields.Count).ToList();
        Assert.Equal(fields.Order(StringComparer.Ordinal), fields);
        Assert.Equal(actions.Order(StringComparer.Ordinal), actions);
        Assert.Contains("duration", fields);
        Assert.Contains("object_name", fields);
        Assert.Contains("sqlserver.session_id", actions);
        Assert.Equal(header.Length, header.Distinct().Count());
        Assert.Equal(1 + 149, rows.Count);
        Assert.All(rows, row => Assert.Equal(header.Length, row.Length));
        var first = rows[1];
        Assert.Equal(("rpc_completed", "56", "OK", "sp_prepare", "182"), (first[1], Cell(header, first, "duration"), Cell(header, first, "result"), Cell(header, first, "object_name"), Cell(header, first, "sqlserver.session_id")));
        Assert.Equal("SQL Server Data Collector - Controller", Cell(header, first, "sqlserver.client_app_name"));
    }

    [Fact]
    public async Task Csv_puts_a_field_in_one_column_of_one_type_whether_it_came_from_xel_or_xe_xml()
    {
        // Given / When: an XE XML sample and the .xel fixture, both with the session_id action
        var run = await CliRun.RunAsync("events", CliRun.Sample("buffer-starved-backup.xml"), Xel, "--format", "csv");

        // Then one header for both, and session_id a plain number in the rows of each
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Error));
        var rows = CsvRows(run.Output);
        var header = rows[0];
        Assert.Single(header, c => c == "sqlserver.session_id");
        Assert.Contains("trace_message", header);
        var fromXml = rows.Skip(1).First(r => r[1] == "backup_restore_progress_trace");
        var fromXel = rows.Skip(1).First(r => r[1] == "rpc_completed");
        Assert.Equal("61", Cell(header, fromXml, "sqlserver.session_id"));
        Assert.Equal("182", Cell(header, fromXel, "sqlserver.session_id"));
        Assert.Equal(string.Empty, Cell(header, fromXel, "trace_message"));
        Assert.Equal("Backup", Cell(header, fromXml, "operation_type"));
    }

    [Fact]
    public async Task Json_lines_give_session_id_as_a_number_from_xe_xml_as_from_xel()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", CliRun.Sample("buffer-starved-backup.xml"), "--name", "backup_restore_progress_trace");

        // Then
        Assert.Equal(0, run.ExitCode);
        using var first = JsonDocument.Parse(run.Output.Split('\n')[0]);
        Assert.Equal(JsonValueKind.Number, first.RootElement.GetProperty("actions").GetProperty("session_id").ValueKind);
        Assert.Equal(JsonValueKind.Number, first.RootElement.GetProperty("fields").GetProperty("trace_level").ValueKind);
    }

    [Fact]
    public async Task Csv_of_an_errorlog_has_its_two_fields_as_columns()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", CliRun.Sample("log-zeroing-restore.log"), "--format", "csv");

        // Then
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Error));
        var rows = CsvRows(run.Output);
        Assert.Equal(["timestamp", "name", "package", "spid", "text"], rows[0]);
        Assert.Contains(rows, r => r[1] == "errorlog_message" && r[3] == "58");
    }

    [Fact]
    public async Task Csv_refuses_an_input_with_more_distinct_names_than_a_header_should_hold_in_one_line()
    {
        // Given XE XML whose one event has 5,000 differently named fields
        var fields = string.Concat(Enumerable.Range(0, 5000).Select(i => $"<data name=\"f{i}\"><value>1</value></data>"));
        using var input = TempInput.WithText($"<events><event name=\"e\" package=\"p\" timestamp=\"2024-05-01T01:30:00.000Z\">{fields}</event></events>", new System.Text.UTF8Encoding(false), "wide.xml");

        // When
        var run = await CliRun.RunAsync("events", input.Path, "--format", "csv");

        // Then nothing listed, one located line, exit 1
        Assert.Equal((1, string.Empty), (run.ExitCode, run.Output));
        var line = Assert.Single(run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"backupxe: {input.Path}: more than 4,096 distinct field and action names", line);
    }

    [Fact]
    public async Task Csv_refuses_standard_input_which_cannot_be_read_twice()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", "-", "--format", "csv");

        // Then
        Assert.Equal((1, string.Empty), (run.ExitCode, run.Output));
        Assert.StartsWith("backupxe: -: events --format csv reads each input twice", run.Error);
    }

    [Fact]
    public void The_csv_first_pass_over_a_xel_reads_its_metadata_not_its_events()
    {
        // Given the fixture's event buffer repeated 200 times after its header and metadata (about 20 MB)
        var fixture = File.ReadAllBytes(Xel);
        var bytes = (byte[])[.. fixture[..0x5000], .. Enumerable.Repeat(fixture[0x5000..], 200).SelectMany(b => b)];
        var read = 0L;
        var source = new BackupXe.Sources.Xel.XelFileSource("repeated.xel", () => new CountingReads(bytes, n => read += n));
        var names = new BackupXe.Sources.XeEvents.XeNames();

        // When
        source.AddNames(names, TestContext.Current.CancellationToken);

        // Then the names are those of the whole file, read from its first buffers only (the walk reads whole buffers,
        // so the first event buffer or two are read too): not 2 % of the file
        Assert.Contains("duration", names.Fields);
        Assert.Contains(("sqlserver", "session_id"), names.Actions);
        Assert.InRange(read, 0x5000, 3 * fixture.Length);
        Assert.True(read < bytes.Length / 50, $"{read:N0} of {bytes.Length:N0} bytes read");
    }

    private static List<string[]> CsvRows(string csv)
    {
        // RFC 4180: quoted cells may hold commas, doubled quotes and line breaks.
        var rows = new List<string[]>();
        var row = new List<string>();
        var cell = new System.Text.StringBuilder();
        var quoted = false;
        for (var i = 0; i < csv.Length; i++)
        {
            var c = csv[i];
            if (quoted)
            {
                if (c == '"' && i + 1 < csv.Length && csv[i + 1] == '"')
                {
                    cell.Append('"');
                    i++;
                }
                else if (c == '"')
                {
                    quoted = false;
                }
                else
                {
                    cell.Append(c);
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                row.Add(cell.ToString());
                cell.Clear();
            }
            else if (c == '\n')
            {
                row.Add(cell.ToString().TrimEnd('\r'));
                cell.Clear();
                rows.Add([.. row]);
                row.Clear();
            }
            else
            {
                cell.Append(c);
            }
        }

        return rows;
    }

    private static string Cell(string[] header, string[] row, string column) => row[Array.IndexOf(header, column)];

    /// <summary>A file's bytes that count how many are read.</summary>
    private sealed class CountingReads(byte[] bytes, Action<int> counted) : MemoryStream(bytes, writable: false)
    {
        public override int Read(byte[] buffer, int offset, int count)
        {
            var n = base.Read(buffer, offset, count);
            counted(n);
            return n;
        }

        public override int Read(Span<byte> buffer)
        {
            var n = base.Read(buffer);
            counted(n);
            return n;
        }
    }

    [Fact]
    public async Task Lists_a_rollover_set_given_as_a_pattern_file_after_file()
    {
        // Given two rollover files of one session
        using var first = TempInput.WithBytes(File.ReadAllBytes(Xel), "trace_0_9.xel");
        File.Copy(Xel, Path.Combine(Path.GetDirectoryName(first.Path)!, "trace_0_10.xel"));

        // When
        var run = await CliRun.RunAsync("events", Path.Combine(Path.GetDirectoryName(first.Path)!, "trace_0_*.xel"), "--name", "rpc_completed");

        // Then
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Error));
        Assert.Equal(22, run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    [Fact]
    public async Task Lists_xe_xml_and_errorlog_events_too()
    {
        // Given / When
        var run = await CliRun.RunAsync("events", CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log"), "--name", "errorlog_message", "--name", "backup_restore_progress_trace");

        // Then
        Assert.Equal(0, run.ExitCode);
        var lines = run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains(lines, l => l.Contains("\"trace_message\":\"BACKUP DATABASE started\"", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("\"name\":\"errorlog_message\"", StringComparison.Ordinal) && l.Contains("\"spid\":58", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_truncated_xel_lists_what_is_complete_and_exits_two_with_a_located_line()
    {
        // Given the fixture cut inside its event buffer's records
        using var cut = TempInput.WithBytes(File.ReadAllBytes(Xel)[..0x6000], "cut.xel");

        // When
        var run = await CliRun.RunAsync("events", cut.Path, "--output", Path.Combine(Path.GetDirectoryName(cut.Path)!, "out.jsonl"));

        // Then
        Assert.Equal(2, run.ExitCode);
        var line = Assert.Single(run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"backupxe: {cut.Path}: offset 20480: file ends", line);
        // The records before the cut are listed, each a whole JSON line.
        var listed = File.ReadAllLines(Path.Combine(Path.GetDirectoryName(cut.Path)!, "out.jsonl"));
        Assert.NotEmpty(listed);
        Assert.All(listed, l => System.Text.Json.JsonDocument.Parse(l).Dispose());
    }

    [Theory]
    [InlineData("jsonl")]
    [InlineData("csv")]
    public async Task Writes_its_listing_in_blocks_of_a_megabyte_not_a_write_per_event(string format)
    {
        // Given the fixture's event buffer repeated 30 times after its header and metadata (4,470 events)
        var fixture = File.ReadAllBytes(Xel);
        using var input = TempInput.WithBytes([.. fixture[..0x5000], .. Enumerable.Repeat(fixture[0x5000..], 30).SelectMany(b => b)], "repeated.xel");
        var output = new CountingStream();
        var error = new StringWriter();

        // When
        var exit = await BackupXe.Cli.Program.RunAsync(["events", input.Path, "--format", format], CliRun.Captured(new StringWriter(), error) with { OpenStandardOutput = () => output });

        // Then every event is listed, through one write per full megabyte and one for the rest
        Assert.Equal((0, string.Empty), (exit, error.ToString()));
        var lines = System.Text.Encoding.UTF8.GetString(output.Bytes.ToArray()).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(format == "csv" ? 1 + 4470 : 4470, lines.Count(l => l.StartsWith(format == "csv" ? "2017-" : "{\"timestamp\":\"2017-", StringComparison.Ordinal) || l.StartsWith("timestamp,", StringComparison.Ordinal)));
        Assert.InRange(output.Writes, 1, (output.Bytes.Length / (1 << 20)) + 1);
    }

    /// <summary>Standard output that keeps what it is given and counts the writes that gave it.</summary>
    private sealed class CountingStream : Stream
    {
        public MemoryStream Bytes { get; } = new();

        public int Writes { get; private set; }

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => Bytes.Length;

        public override long Position { get => Bytes.Position; set => throw new NotSupportedException(); }

        public override void Write(byte[] buffer, int offset, int count)
        {
            Writes++;
            Bytes.Write(buffer, offset, count);
        }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();
    }
}
