using System.Text.Json;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

[Collection(ConsoleCollection.Name)]
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
        Assert.StartsWith("timestamp,name,package,fields,actions\n", run.Output.ReplaceLineEndings("\n"));
        Assert.Equal(4, run.Output.Split('\n').Count(l => l.Contains(",login,sqlserver,", StringComparison.Ordinal)));
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
        var stderr = Console.Error;
        var error = new StringWriter();
        Console.SetError(error);
        int exit;
        try
        {
            // When
            exit = await BackupXe.Cli.Program.RunAsync(["events", input.Path, "--format", format], () => output);
        }
        finally
        {
            Console.SetError(stderr);
        }

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
