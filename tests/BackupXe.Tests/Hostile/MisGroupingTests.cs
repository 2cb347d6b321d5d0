using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Damage that used to regroup operations silently: a completion line whose figures no server writes (the operation
/// then ran on into the next one, under the next one's database), UTF-8 appended to a UTF-16 file as PowerShell 5
/// leaves it, a command whose end was never printed before the next one began, UTF-16 without a BOM. Each is now a
/// located problem (or, for the encodings, read as the file's other forms are), and every operation stays itself.
/// </summary>
public class MisGroupingTests
{
    // The real shape of sqlcmd output: a backup of Sales, then a restore of Other.
    private const string ClientOutput =
        "10 percent processed.\r\n"
        + "100 percent processed.\r\n"
        + "Processed 24264 pages for database 'Sales', file 'Sales_Data' on file 1.\r\n"
        + "BACKUP DATABASE successfully processed 24266 pages in 1.414 seconds (134.067 MB/sec).\r\n"
        + "10 percent processed.\r\n"
        + "100 percent processed.\r\n"
        + "Processed 500 pages for database 'Other', file 'Other_Data' on file 1.\r\n"
        + "RESTORE DATABASE successfully processed 500 pages in 2.000 seconds (1.953 MB/sec).\r\n";

    private static readonly DateTime Night = new(2024, 6, 1, 1, 0, 0);

    [Theory]
    [InlineData("-24266 pages in 1.414 seconds")]
    [InlineData("24266 pages in NaN seconds")]
    [InlineData("24266 pages in 1e13 seconds")]
    public async Task Given_client_output_whose_completion_line_has_impossible_figures_when_analysed_then_the_backup_is_not_merged_into_the_restore(string figures)
    {
        // Given
        var text = ClientOutput.Replace("24266 pages in 1.414 seconds", figures, StringComparison.Ordinal);

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text), "client.txt");

        // Then
        run.AssertInvariants(figures);
        Assert.Equal(2, run.ExitCode);
        Assert.Equal("line 4", Assert.Single(run.Problems).Location);
        Assert.Collection(
            run.Operations.OrderBy(o => o.Kind),
            backup => Assert.Equal((OperationKind.Backup, "Sales"), (backup.Kind, backup.Database)),
            restore => Assert.Equal((OperationKind.Restore, "Other", OperationStatus.Completed), (restore.Kind, restore.Database, restore.Status)));
    }

    [Theory]
    [InlineData("-1000 pages in 4.000 seconds")]
    [InlineData("1000 pages in NaN seconds")]
    public async Task Given_ola_output_with_a_rejected_completion_line_when_analysed_then_every_command_is_one_operation(string figures)
    {
        // Given: four commands, the second's completion line damaged
        var output = new OlaJobOutput();
        foreach (var (database, minute) in new[] { ("A", 0), ("B", 1), ("C", 2), ("D", 3) })
        {
            output.Command(Night.AddMinutes(minute), TimeSpan.FromSeconds(5), $"BACKUP DATABASE [{database}] TO DISK = N'X:\\{database}.bak'", pages: 1000, engineSeconds: 4);
        }

        var text = output.ToString();
        var second = text.IndexOf("[B]", StringComparison.Ordinal);
        var completion = text.IndexOf("1000 pages in 4.000 seconds", second, StringComparison.Ordinal);
        text = string.Concat(text.AsSpan(0, completion), figures, text.AsSpan(completion + "1000 pages in 4.000 seconds".Length));

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text), "ola.txt");

        // Then
        run.AssertInvariants(figures);
        Assert.Equal(2, run.ExitCode);
        Assert.Single(run.Problems);
        Assert.Equal(["A", "B", "C", "D"], run.Operations.Select(o => o.Database).Order());
        Assert.All(run.Operations, o => Assert.Equal(OperationStatus.Completed, o.Status));
    }

    [Fact]
    public async Task Given_ola_output_where_a_command_begins_before_the_previous_ones_outcome_when_analysed_then_both_are_reported_and_the_gap_located()
    {
        // Given: a command cut right after its 'Command:' line, then a whole command
        var text = new OlaJobOutput()
            .Raw("Date and time: 2024-06-01 01:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: BACKUP DATABASE [A] TO DISK = N'X:\\A.bak'")
            .Command(Night.AddMinutes(1), TimeSpan.FromSeconds(5), "BACKUP DATABASE [B] TO DISK = N'X:\\B.bak'", pages: 1000, engineSeconds: 4)
            .ToString();
        var commandLine = text.AsSpan(0, text.IndexOf("Command: BACKUP DATABASE [A]", StringComparison.Ordinal)).Count('\n') + 1;

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text), "ola.txt");

        // Then: A as history import keeps it, incomplete; B once, completed
        run.AssertInvariants("second Command:");
        Assert.Equal(2, run.ExitCode);
        Assert.Equal($"line {commandLine}", Assert.Single(run.Problems).Location);
        Assert.Collection(
            run.Operations.OrderBy(o => o.Database),
            a => Assert.Equal(("A", OperationStatus.Incomplete), (a.Database, a.Status)),
            b => Assert.Equal(("B", OperationStatus.Completed), (b.Database, b.Status)));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Given_utf8_appended_to_utf16_client_output_when_analysed_then_both_parts_are_read_and_the_switch_located(bool utf8Bom)
    {
        // Given: the backup written by '>' in UTF-16LE with its BOM, the restore appended in UTF-8 (with or without one)
        var split = ClientOutput.IndexOf("10 percent", 10, StringComparison.Ordinal);
        var utf16 = new UnicodeEncoding(bigEndian: false, byteOrderMark: true);
        byte[] bytes = [.. utf16.GetPreamble(), .. utf16.GetBytes(ClientOutput[..split]), .. (utf8Bom ? Encoding.UTF8.GetPreamble() : []),
            .. Encoding.UTF8.GetBytes(ClientOutput[split..])];

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "ps5.txt");

        // Then
        run.AssertInvariants("ps5");
        Assert.Equal(2, run.ExitCode);
        Assert.Equal($"offset {2 + (split * 2)}", Assert.Single(run.Problems).Location);
        Assert.Equal(["Backup Sales", "Restore Other"], run.Operations.Where(o => o.Status == OperationStatus.Completed).Select(o => $"{o.Kind} {o.Database}").Order());
    }

    [Fact]
    public async Task Given_utf8_appended_to_a_utf16_errorlog_when_analysed_then_the_appended_lines_are_read()
    {
        // Given: the restore sample's first half as the server wrote it, the rest appended in UTF-8
        var raw = File.ReadAllBytes(CliRun.Sample("log-zeroing-restore.log"));
        var text = Encoding.Unicode.GetString(raw, 2, raw.Length - 2);
        var half = text.IndexOf('\n', text.Length / 2) + 1;
        byte[] bytes = [.. raw[..(2 + (half * 2))], .. Encoding.UTF8.GetBytes(text[half..])];
        var clean = await HostileRun.AnalyzeAsync(raw, "restore.log");

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "restore.log");

        // Then
        run.AssertInvariants("errorlog ps5");
        Assert.Equal($"offset {2 + (half * 2)}", Assert.Single(run.Problems).Location);
        Assert.Equal(clean.Completed, run.Completed);
        Assert.NotEmpty(run.Completed);
    }

    [Fact]
    public async Task Given_a_large_utf16_errorlog_with_cjk_text_when_analysed_then_no_part_is_taken_for_appended_utf8()
    {
        // Given: 400 KB of messages naming a database in Chinese (U+4E2D is the byte pair '-' 'N', ASCII both) before the
        // restore sample, so that such characters fall in every block the reader asks for
        var raw = File.ReadAllBytes(CliRun.Sample("log-zeroing-restore.log"));
        var sample = Encoding.Unicode.GetString(raw, 2, raw.Length - 2);
        var filler = string.Concat(Enumerable.Repeat("2024-05-02 06:00:00.00 spid12      Starting up database '中文数据库' 中中.\r\n", 4000));
        byte[] bytes = [.. raw[..2], .. Encoding.Unicode.GetBytes(filler + sample)];
        var clean = await HostileRun.AnalyzeAsync(raw, "restore.log");

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "restore.log");

        // Then
        run.AssertInvariants("cjk");
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(clean.Completed, run.Completed);
    }

    [Theory]
    [InlineData("buffer-starved-backup.xml", false)]
    [InlineData("buffer-starved-backup.xml", true)]
    [InlineData("log-zeroing-restore.log", false)]
    [InlineData("log-zeroing-restore.log", true)]
    public async Task Given_a_utf16_input_without_its_bom_when_analysed_then_it_reads_as_with_one(string sample, bool bigEndian)
    {
        // Given: the sample re-encoded as UTF-16 with no BOM (the XML keeps its encoding="utf-8" declaration, as a
        // re-encoding tool leaves it)
        var raw = File.ReadAllBytes(CliRun.Sample(sample));
        var text = sample.EndsWith(".log", StringComparison.Ordinal) ? Encoding.Unicode.GetString(raw, 2, raw.Length - 2) : Encoding.UTF8.GetString(raw);
        var clean = await HostileRun.AnalyzeAsync(raw, sample);
        var bytes = (bigEndian ? Encoding.BigEndianUnicode : Encoding.Unicode).GetBytes(text.TrimStart('\uFEFF'));

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, sample);

        // Then
        run.AssertInvariants(sample);
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(clean.Completed, run.Completed);
        Assert.NotEmpty(run.Completed);
    }
}
