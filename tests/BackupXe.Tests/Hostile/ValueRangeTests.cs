using System.Text;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Numbers SQL Server cannot write, placed into real captures: each is one located problem, its event is
/// dropped, and everything else is still analysed with no overflowed (negative or absurd) figure.
/// </summary>
public class ValueRangeTests
{
    public static TheoryData<string, string> ImpossibleXeEvents => new()
    {
        { "a wait of 1e15 ms without session_id", Wait(duration: "1000000000000000", session: null) },
        { "a negative wait", Wait(duration: "-5", session: "61") },
        { "a wait longer than a long", Wait(duration: "99999999999999999999", session: null) },
        { "a signal duration of 1e15 ms", Wait(duration: "5", session: "61", signal: "1000000000000000") },
        { "a session_id beyond uint16", Wait(duration: "5", session: "70000") },
        { "a summary claiming 1e12 seconds", Progress("BACKUP DATABASE successfully processed 1000 pages in 1000000000000.5 seconds (0.001 MB/sec).") },
        { "an estimate of 1e20 bytes", Progress("Estimated total size = 99999999999999999999 bytes (data size = 5 bytes, log size = 5 bytes)") },
        { "a buffer count times 2^62", Progress("MaxTransferSize: 4611686018427387904 KB") },
        { "a BufferCount of int.MaxValue", Progress("BufferCount:                2147483647") },
        { "an effective BufferCount of int.MaxValue", Progress("Effective options: Checksum=0, Compression=0, Encryption=0, BufferCount=2147483647, MaxTransferSize=1024 KB") },
        { "zeroing pages backwards", Progress("Zeroing D:\\x_log.ldf from page 64000 to 1 (0x2000 to 0x1f400000)") },
        { "a timestamp in year 1", Wait(duration: "5", session: "61", timestamp: "0001-01-01T00:00:00Z") },
    };

    [Theory]
    [MemberData(nameof(ImpossibleXeEvents))]
    public async Task An_impossible_xe_value_is_a_located_problem_and_both_backups_are_still_reported(string what, string element)
    {
        // Given the two-backup capture with the bad event placed inside the second backup
        var input = HostileCorpus.XeXml;
        var at = input.RecordEnds[(input.Records / 2) + 5];
        var inserted = Encoding.UTF8.GetBytes(element);
        byte[] bytes = [.. input.Bytes.AsSpan(0, at), .. inserted, .. input.Bytes.AsSpan(at)];
        var line = Encoding.UTF8.GetString(input.Bytes, 0, at).Count(c => c == '\n') + 1;

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, input.FileName);

        // Then
        run.AssertInvariants(what);
        Assert.Equal(2, run.ExitCode);
        var problem = Assert.Single(run.Problems);
        Assert.Equal($"line {line}", problem.Location);
        Assert.Equal(2, run.Completed.Count);
    }

    [Theory]
    [InlineData("BACKUP DATABASE successfully processed 100 pages in 1000000000000 seconds (0.001 MB/sec).")]
    [InlineData("BACKUP DATABASE successfully processed 100 pages in 100000000000 seconds (0.001 MB/sec).")]
    [InlineData("BACKUP DATABASE successfully processed 99999999999999999999 pages in 1.5 seconds (1.0 MB/sec).")]
    [InlineData("BufferCount:                99999999999")]
    [InlineData("Database backed up. Database: x, creation date(time): 2011/09/15(21:46:19), pages dumped: 999999999999999999, first LSN: 1:1:1, last LSN: 1:1:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'D:\\x.bak'}).")]
    public async Task An_errorlog_line_with_an_impossible_number_is_located_and_the_restore_is_still_reported(string message)
    {
        // Given the restore sample with the line appended after its last line
        var input = HostileCorpus.RestoreErrorlog;
        var text = Encoding.Unicode.GetString(input.Bytes.AsSpan(input.Head.Length));
        var lines = input.Records;
        text += $"2024-05-02 23:59:00.00 Backup      {message}\r\n";
        byte[] bytes = [.. input.Head, .. Encoding.Unicode.GetBytes(text)];

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, input.FileName);

        // Then
        run.AssertInvariants(message);
        Assert.Equal(2, run.ExitCode);
        var problem = Assert.Single(run.Problems);
        Assert.Equal($"line {lines + 1}", problem.Location);
        Assert.Contains("beyond what SQL Server can write", problem.Message);
        Assert.Single(run.Completed);
    }

    [Fact]
    public async Task Undecodable_text_in_a_database_name_is_located_not_reported_as_a_name()
    {
        // Given a UTF-16 log whose 41st line has a database name holding an unpaired surrogate (a torn character),
        // past the 4 KB that format detection reads
        var text = new StringBuilder("2024-05-02 06:15:03.40 spid58      Backup(SalesDB): BACKUP DATABASE started\r\n");
        for (var i = 0; i < 39; i++)
        {
            text.Append("2024-05-02 06:15:03.40 spid58      Backup(SalesDB): Opening the backup media set\r\n");
        }

        text.Append("2024-05-02 06:15:03.41 spid58      Backup(Sales\uD800DB): Writing a checkpoint\r\n");
        var bytes = Encoding.Unicode.GetPreamble().Concat(new UnicodeEncoding(false, false, false).GetBytes(text.ToString())).ToArray();

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "torn.log");

        // Then
        run.AssertInvariants("torn name");
        Assert.Contains(run.Problems, p => p.Location == "line 41" && p.Message.Contains("U+FFFD", StringComparison.Ordinal));
        Assert.DoesNotContain('\uFFFD', run.Json);
    }

    [Theory]
    [InlineData("1e30")]
    [InlineData("-519838720")]
    [InlineData("lots")]
    public async Task Given_a_headeronly_size_no_server_writes_when_imported_then_its_row_is_a_located_problem(string size)
    {
        // Given the real RESTORE HEADERONLY result with the size of its first row replaced, then the row sound again
        var lines = File.ReadAllLines(RealWorld.Path("S07_bobsql_sql2022_s3_restore_headeronly.tsv"));
        var damaged = lines[1].Replace("\t519838720\t", $"\t{size}\t", StringComparison.Ordinal);
        Assert.NotEqual(lines[1], damaged);
        using var input = TempInput.WithText(string.Join("\r\n", [lines[0], damaged, .. lines[1..]]) + "\r\n", new UTF8Encoding(false), "header.tsv");

        // When
        var read = await HistoryFileRead.ReadAsync(input.Path, CancellationToken.None);

        // Then
        var problem = Assert.Single(read.Problems);
        Assert.Equal("line 2", problem.Location);
        Assert.Contains($"BackupSize '{size}' is not a size in bytes", problem.Message);
        Assert.Equal(lines.Length - 1, read.Records.Count);
    }

    [Fact]
    public async Task Given_a_headeronly_result_cut_after_its_header_when_imported_then_the_cut_is_a_located_problem()
    {
        // Given
        var header = File.ReadAllLines(RealWorld.Path("S07_bobsql_sql2022_s3_restore_headeronly.tsv"))[0];
        using var input = TempInput.WithText(header, new UTF8Encoding(false), "header.tsv");

        // When
        var read = await HistoryFileRead.ReadAsync(input.Path, CancellationToken.None);

        // Then
        var problem = Assert.Single(read.Problems);
        Assert.Equal("line 1", problem.Location);
        Assert.Contains("not followed by any backup set", problem.Message);
    }

    [Fact]
    public async Task A_last_line_without_a_line_end_is_its_own_message()
    {
        // Given an export whose last line has no CRLF
        var input = HostileCorpus.RestoreErrorlog;
        var text = Encoding.Unicode.GetString(input.Bytes.AsSpan(input.Head.Length)).TrimEnd('\r', '\n');
        byte[] bytes = [.. input.Head, .. Encoding.Unicode.GetBytes(text)];

        // When
        var whole = await HostileRun.AnalyzeAsync(input.Bytes, input.FileName);
        var run = await HostileRun.AnalyzeAsync(bytes, input.FileName);

        // Then
        run.AssertInvariants("no final CRLF");
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(whole.Statuses[0].Events, run.Statuses[0].Events);
        Assert.Equal(whole.Completed.Order(), run.Completed.Order());
    }

    private static string Wait(string duration, string? session, string signal = "0", string timestamp = "2024-05-01T02:30:05.000Z") =>
        $"""  <event name="wait_info" package="sqlos" timestamp="{timestamp}"><data name="wait_type"><value>107</value><text>BACKUPIO</text></data><data name="opcode"><value>1</value><text>End</text></data><data name="duration"><value>{duration}</value></data><data name="signal_duration"><value>{signal}</value></data>{(session is null ? "" : $"<action name=\"session_id\" package=\"sqlserver\"><value>{session}</value></action>")}</event>""" + "\n";

    private static string Progress(string message) =>
        $"""  <event name="backup_restore_progress_trace" package="sqlserver" timestamp="2024-05-01T02:30:05.000Z"><data name="operation_type"><value>0</value><text>Backup</text></data><data name="database_name"><value>SalesDB2</value></data><data name="trace_message"><value><![CDATA[{message}]]></value></data><action name="session_id" package="sqlserver"><value>62</value></action></event>""" + "\n";
}
