using System.Text;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// The format is decided by the majority of the content, past a line longer than the detection window, and a cut
/// is located whatever wraps the line it falls in: no input is lost whole, or in part without a word, for one line.
/// </summary>
public class DetectionTests
{
    private const string Transcript = "T01a_purestorage_sql2022_tsql_snapshot_backup_pitr_verbose.txt";

    [Fact]
    public async Task Given_a_transcript_with_one_errorlog_line_at_its_top_when_analysed_then_it_is_still_a_transcript()
    {
        // Given the genuine PowerShell transcript, and the same with an ERRORLOG line pasted above it
        var transcript = await File.ReadAllBytesAsync(Fixture.RealWorld2(Transcript));
        var clean = await HostileRun.AnalyzeAsync(transcript, "transcript.txt");
        var pasted = Encoding.UTF8.GetBytes("2024-05-02 06:15:03.41 spid58      Backup(SalesDB): BACKUP DATABASE started\r\n").Concat(transcript).ToArray();

        // When
        var run = await HostileRun.AnalyzeAsync(pasted, "transcript.txt");

        // Then every operation of the transcript is still read
        run.AssertInvariants("errorlog line on top");
        Assert.Equal(2, clean.Operations.Count);
        run.AssertKeeps(clean, "errorlog line on top");
    }

    [Fact]
    public async Task Given_a_transcript_cut_inside_a_verbose_line_when_analysed_then_the_cut_is_located()
    {
        // Given the transcript cut inside the completion line of its restore, after "VERBOSE: RESTORE DATABASE succ"
        var text = await File.ReadAllTextAsync(Fixture.RealWorld2(Transcript));
        var at = text.IndexOf("VERBOSE: RESTORE DATABASE successfully", StringComparison.Ordinal);
        var lineNumber = text[..at].Count(c => c == '\n') + 1;

        foreach (var cut in new[] { at + 4, at + "VERBOSE: RESTORE DATABASE succ".Length, at + "VERBOSE: RESTORE DATABASE successfully processed 0 pa".Length })
        {
            // When
            var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text[..cut]), "transcript.txt");

            // Then
            var what = $"cut after '{text[at..cut]}'";
            run.AssertInvariants(what);
            Assert.True(run.ExitCode == 2, $"{what}: exit {run.ExitCode}");
            Assert.Contains(run.Problems, p => p.Location == $"line {lineNumber}");
        }
    }

    [Fact]
    public async Task Given_a_line_longer_than_the_detection_window_at_the_top_when_analysed_then_the_log_is_read_and_the_line_located()
    {
        // Given the restore sample after a line of 200,000 characters
        var log = await File.ReadAllTextAsync(CliRun.Sample("log-zeroing-restore.log"), Encoding.Unicode);
        var clean = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(log), "restore.log");
        var text = new string('A', 200_000) + "\r\n" + log;

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text), "restore.log");

        // Then
        run.AssertInvariants("long first line");
        Assert.Equal(2, run.ExitCode);
        Assert.Contains(run.Problems, p => p.Location == "line 1");
        Assert.NotEmpty(clean.Operations);
        run.AssertKeeps(clean, "long first line");
    }
}
