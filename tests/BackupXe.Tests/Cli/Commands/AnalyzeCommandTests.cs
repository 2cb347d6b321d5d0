using System.Text.Json;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

public class AnalyzeCommandTests
{
    private static readonly string BufferStarved = CliRun.Sample("buffer-starved-backup.xml");
    private static readonly string LogZeroing = CliRun.Sample("log-zeroing-restore.log");

    [Fact]
    public async Task Exits_zero_with_a_diagnosis_for_the_bundled_samples()
    {
        // Given / When
        var run = await CliRun.RunAsync("analyze", BufferStarved, LogZeroing, "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("buffer-starved (high", run.Output);
        Assert.Contains("file-zeroing (high", run.Output);
        Assert.Equal(string.Empty, run.Error);
    }

    [Fact]
    public async Task Reads_real_client_output_and_old_errorlogs_with_the_new_verdicts_in_json()
    {
        // Given: S13 (client STATS output), S15 (2008 R2 trace flag 3014), S14 (2012 restore cut short)
        var files = new[]
        {
            "S13_sqlworkday_2012_restore_stats_output.txt",
            "S15_mssqltrek_2008r2_tf3014_backup.txt",
            "S14_sqlservercentral_2012_tf3004_restore_partial.txt",
        }.Select(Fixture.RealWorld).ToArray();

        // When
        var run = await CliRun.RunAsync(["analyze", .. files, "--format", "json"]);

        // Then
        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        var inputs = json.RootElement.GetProperty("inputs").EnumerateArray().Select(i => i.GetProperty("format").GetString()).ToList();
        Assert.Equal(["client-output", "errorlog", "errorlog"], inputs);
        var verdicts = json.RootElement.GetProperty("operations").EnumerateArray()
            .Select(o => (o.GetProperty("database").GetString(), o.GetProperty("verdict").GetProperty("bottleneck").GetString()))
            .OrderBy(v => v.Item1, StringComparer.Ordinal)
            .ToList();
        Assert.Equal([("3014_demo", "not-a-throughput-problem"), ("AdventureWorks", "file-zeroing"), ("TestDB", "cannot-tell")], verdicts);
        var partial = json.RootElement.GetProperty("operations").EnumerateArray().Single(o => o.GetProperty("database").GetString() == "AdventureWorks");
        Assert.Equal(19.05, partial.GetProperty("minimumDurationSeconds").GetDouble(), 3);
        Assert.Equal("the prepare-containers phase and the wait-log-zero phase", partial.GetProperty("verdict").GetProperty("decidedBy").GetString());
    }

    [Fact]
    public async Task Compares_an_excerpts_timed_runs_at_their_lines_as_a_finding_and_exits_zero()
    {
        // Given: S04c, two completion lines whose head the author cut ("... in 0.542 seconds (350.799 MB/sec)")
        var file = Fixture.RealWorld("S04c_sqlsat_timings_3files_default_vs_bc64_mts2mb.txt");

        // When
        var run = await CliRun.RunAsync("analyze", file, "--format", "json");

        // Then: no operation is invented; what the runs show is a finding of the report, not a problem of the input (issue 42)
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(string.Empty, run.Error);
        using var json = JsonDocument.Parse(run.Output);
        Assert.Equal(0, json.RootElement.GetProperty("operations").GetArrayLength());
        Assert.Equal(0, json.RootElement.GetProperty("inputs")[0].GetProperty("problems").GetArrayLength());
        var finding = Assert.Single(json.RootElement.GetProperty("findings").EnumerateArray());
        Assert.Equal("lines 1-2", finding.GetProperty("location").GetString());
        Assert.StartsWith("completion lines whose head the excerpt cut", finding.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Contains("the second took 7% less time (1.08x faster by time, 1.11x by rate). Both ran under 10.0 s: not a throughput problem",
            finding.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Equal("client-output", json.RootElement.GetProperty("inputs")[0].GetProperty("format").GetString());
    }

    [Fact]
    public async Task Reads_an_Ola_Hallengren_job_output_with_the_clients_span()
    {
        // Given: a DatabaseRestore command of 00:10:05 around S13's 23.265 s restore
        var text = new OlaJobOutput()
            .Raw("Date and time: 2024-05-01 02:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: RESTORE DATABASE [TestDB] FROM DISK = N'X:\\b\\TestDB_FULL.bak' WITH REPLACE")
            .Raw("RESTORE DATABASE successfully processed 292894 pages in 23.265 seconds (98.355 MB/sec).")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:10:05")
            .Raw("Date and time: 2024-05-01 02:10:05")
            .Raw("\t")
            .ToString();
        using var input = TempInput.WithText(text, System.Text.Encoding.UTF8, "DatabaseRestore.txt");

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--format", "json");

        // Then
        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        var restore = json.RootElement.GetProperty("operations")[0];
        Assert.Equal("outside-the-operation", restore.GetProperty("verdict").GetProperty("bottleneck").GetString());
        Assert.Equal(605, restore.GetProperty("clientCommand").GetProperty("seconds").GetDouble());
        Assert.Equal("ola-output", json.RootElement.GetProperty("inputs")[0].GetProperty("format").GetString());
    }

    [Fact]
    public async Task Exits_two_and_still_reports_the_good_input_when_another_is_truncated()
    {
        // Given: a truncated XE XML beside a good sample
        using var truncated = TempInput.WithText("<RingBufferTarget><event name=\"wait_info\" package=\"sqlos\" timestamp=\"2024-05-01T10:00:00Z\"><data name=", System.Text.Encoding.UTF8, "cut.xml");

        // When
        var run = await CliRun.RunAsync("analyze", truncated.Path, BufferStarved, "--format", "json");

        // Then
        Assert.Equal(2, run.ExitCode);
        Assert.Contains(truncated.Path, run.Error);
        Assert.Contains("line 1", run.Error);
        using var json = JsonDocument.Parse(run.Output);
        Assert.Equal(1, json.RootElement.GetProperty("operations").GetArrayLength());
        Assert.NotEqual(0, json.RootElement.GetProperty("inputs")[0].GetProperty("problems").GetArrayLength());
    }

    [Theory]
    [InlineData("missing")]
    [InlineData("empty")]
    [InlineData("binary")]
    public async Task Exits_one_with_a_one_line_error_when_nothing_is_usable(string kind)
    {
        // Given
        using var input = kind switch
        {
            "missing" => TempInput.Nowhere("nothing-here.xml"),
            "empty" => TempInput.WithBytes([], "empty.log"),
            _ => TempInput.WithBytes([0x00, 0x01, 0xFE, 0x7F, 0x00, 0x00, 0x13, 0x37, 0xC3, 0x00], "blob.bin"),
        };

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--no-color");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains(input.Path, line);
        Assert.DoesNotContain("   at ", run.Error);
    }

    [Fact]
    public async Task Reads_the_genuine_xel_and_says_it_holds_no_backup()
    {
        // Given
        var xel = Path.Combine(AppContext.BaseDirectory, "Fixtures", "xel", "TestXel_0.xel");

        // When
        var run = await CliRun.RunAsync("analyze", xel, "--format", "json");

        // Then: read whole, so exit 0; the report lists the 149 events and no operation
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(string.Empty, run.Error);
        using var json = JsonDocument.Parse(run.Output);
        var input = json.RootElement.GetProperty("inputs")[0];
        Assert.Equal("xel", input.GetProperty("format").GetString());
        Assert.Equal(149, input.GetProperty("events").GetInt64());
        Assert.Equal(0, json.RootElement.GetProperty("operations").GetArrayLength());
    }

    [Fact]
    public async Task Says_in_the_console_that_the_xel_holds_no_backup()
    {
        // Given
        var xel = Path.Combine(AppContext.BaseDirectory, "Fixtures", "xel", "TestXel_0.xel");

        // When
        var run = await CliRun.RunAsync("analyze", xel, "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("No backup or restore was found in the input: its 149 events or messages (xel) hold no backup", run.Output.ReplaceLineEndings(" "));
        Assert.Contains("backupxe events lists them by name", run.Output.ReplaceLineEndings(" "));
    }

    [Fact]
    public async Task Events_with_a_name_the_input_lacks_lists_the_names_it_holds()
    {
        // Given
        var xel = Path.Combine(AppContext.BaseDirectory, "Fixtures", "xel", "TestXel_0.xel");

        // When
        var run = await CliRun.RunAsync("events", xel, "--name", "nosuch");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Equal(string.Empty, run.Output);
        Assert.Equal(
            "backupxe: no event named nosuch; the input holds existing_connection (120), rpc_completed (11), sql_batch_completed (5), sql_batch_starting (5), login (4), logout (4)",
            run.Error.Trim());
    }

    [Fact]
    public async Task Exits_one_on_a_usage_error()
    {
        // Given / When
        var run = await CliRun.RunAsync("analyze", BufferStarved, "--format", "yaml");

        // Then
        Assert.Equal(1, run.ExitCode);
    }

    [Fact]
    public async Task Writes_the_json_contract_with_every_documented_field()
    {
        // Given / When
        var run = await CliRun.RunAsync("analyze", BufferStarved, "--format", "json");

        // Then
        using var json = JsonDocument.Parse(run.Output);
        var root = json.RootElement;
        Assert.Equal(1, root.GetProperty("schemaVersion").GetInt32());
        var input = root.GetProperty("inputs")[0];
        Assert.Equal("xe-xml", input.GetProperty("format").GetString());
        Assert.Equal(7150, input.GetProperty("events").GetInt64());
        var op = root.GetProperty("operations")[0];
        string[] fields =
        [
            "kind", "scope", "database", "sessionId", "start", "end", "status", "durationSeconds", "estimatedBytes",
            "bytesProcessed", "throughputMBps", "dataCopyThroughputMBps", "devices", "dataFileReaders", "bufferConfig",
            "options", "files", "zeroing", "phases", "waits", "verdict", "recommendations",
        ];
        Assert.All(fields, f => Assert.True(op.TryGetProperty(f, out _), $"missing {f}"));
        Assert.Equal("backup", op.GetProperty("kind").GetString());
        Assert.Equal("database", op.GetProperty("scope").GetString());
        Assert.Equal("completed", op.GetProperty("status").GetString());
        Assert.Equal(7, op.GetProperty("bufferConfig").GetProperty("bufferCount").GetInt32());
        Assert.Equal("copy-data", op.GetProperty("phases")[3].GetProperty("name").GetString());
        Assert.Equal("buffer-starved", op.GetProperty("verdict").GetProperty("bottleneck").GetString());
        Assert.Equal("high", op.GetProperty("verdict").GetProperty("confidence").GetString());
        Assert.Equal("BACKUPBUFFER", op.GetProperty("waits")[0].GetProperty("waitType").GetString());
        Assert.EndsWith("Z", op.GetProperty("start").GetString());
        Assert.Equal("raise-buffers", op.GetProperty("recommendations")[0].GetProperty("id").GetString());
    }

    [Fact]
    public async Task Writes_errorlog_times_without_a_zone_they_do_not_have()
    {
        // Given / When
        var run = await CliRun.RunAsync("analyze", LogZeroing, "--format", "json");

        // Then
        using var json = JsonDocument.Parse(run.Output);
        var start = json.RootElement.GetProperty("operations")[0].GetProperty("start").GetString();
        Assert.Equal("2024-05-02T06:15:03.41", start);
    }

    [Fact]
    public async Task Writes_the_report_to_the_output_file()
    {
        // Given
        var path = Path.Combine(Path.GetTempPath(), $"backupxe-{Guid.NewGuid():N}.md");

        try
        {
            // When
            var run = await CliRun.RunAsync("analyze", LogZeroing, "--format", "markdown", "--output", path);

            // Then
            Assert.Equal(0, run.ExitCode);
            Assert.Equal(string.Empty, run.Output);
            Assert.StartsWith("# BackupXe analysis", await File.ReadAllTextAsync(path));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Writes_the_same_json_bytes_to_the_output_file_as_to_standard_output()
    {
        // Given
        var path = Path.Combine(Path.GetTempPath(), $"backupxe-{Guid.NewGuid():N}.json");

        try
        {
            // When: once to standard output (bytes, not the console's text writer), once to a file
            var toConsole = await CliRun.RunAsync("analyze", BufferStarved, LogZeroing, "--format", "json");
            var toFile = await CliRun.RunAsync("analyze", BufferStarved, LogZeroing, "--format", "json", "--output", path);

            // Then: one document on standard output and nothing else; the file holds the same bytes (UTF-8, no BOM)
            Assert.Equal((0, 0, string.Empty), (toConsole.ExitCode, toFile.ExitCode, toFile.Output));
            using var document = JsonDocument.Parse(toConsole.Output);
            Assert.Equal(2, document.RootElement.GetProperty("inputs").GetArrayLength());
            Assert.Equal(System.Text.Encoding.UTF8.GetBytes(toConsole.Output), await File.ReadAllBytesAsync(path));
        }
        finally
        {
            File.Delete(path);
        }
    }
}
