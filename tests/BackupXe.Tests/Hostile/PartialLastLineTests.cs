using System.Text;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Outputs cut short inside their last command or message, as a copy taken while the job still ran or a full disk
/// leaves them: the cut is a located problem (exit code 2), and every complete command before it is kept.
/// </summary>
public class PartialLastLineTests
{
    private const string ClientOutput =
        "10 percent processed.\r\n"
        + "100 percent processed.\r\n"
        + "Processed 24264 pages for database 'Sales', file 'Sales_Data' on file 1.\r\n"
        + "Processed 2 pages for database 'Sales', file 'Sales_Log' on file 1.\r\n"
        + "BACKUP DATABASE successfully processed 24266 pages in 1.414 seconds (134.067 MB/sec).\r\n"
        + "10 percent processed.\r\n"
        + "100 percent processed.\r\n"
        + "Processed 3 pages for database 'Sales', file 'Sales_Log' on file 2.\r\n"
        + "BACKUP LOG successfully processed 3 pages in 0.010 seconds (2.343 MB/sec).\r\n";

    [Fact]
    public async Task Given_ola_output_cut_inside_its_last_command_when_analysed_then_the_cut_is_located_and_the_commands_before_are_kept()
    {
        // Given every cut from the last command's 'Command:' line to its closing 'Date and time:' line
        var text = new OlaJobOutput()
            .Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [First] TO DISK = N'X:\\F.bak'", pages: 1000, engineSeconds: 4)
            .Command(new DateTime(2024, 6, 1, 1, 1, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Second] TO DISK = N'X:\\S.bak'", pages: 1000, engineSeconds: 4)
            .ToString();
        var from = text.LastIndexOf("Command: ", StringComparison.Ordinal) + 1;
        var closing = text.LastIndexOf("Date and time: ", StringComparison.Ordinal);
        var to = closing + "Date and time: 2024-06-01 01:01:05".Length - 1;

        for (var cut = from; cut < to; cut += 3)
        {
            // When
            var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text[..cut]), "ola.txt");

            // Then
            var what = $"cut at {cut}: ...{text[Math.Max(0, cut - 30)..cut]}";
            run.AssertInvariants(what);
            Assert.True(run.ExitCode == 2, $"{what}: exit {run.ExitCode}");
            Assert.Contains(run.Operations, o => o.Database == "First" && o.Status == OperationStatus.Completed);
        }
    }

    [Fact]
    public async Task Given_client_output_cut_inside_its_last_operation_when_analysed_then_the_cut_is_located_and_the_operations_before_are_kept()
    {
        // Given every cut inside the messages of the second operation, its completion line included
        var from = ClientOutput.IndexOf("BACKUP DATABASE", StringComparison.Ordinal);
        from = ClientOutput.IndexOf('\n', from) + 2;
        var to = ClientOutput.Length - "(2.343 MB/sec).\r\n".Length;

        for (var cut = from; cut < to; cut += 2)
        {
            // When
            var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(ClientOutput[..cut]), "client.txt");

            // Then
            var what = $"cut at {cut}: ...{ClientOutput[Math.Max(0, cut - 30)..cut]}";
            run.AssertInvariants(what);
            Assert.True(run.ExitCode == 2, $"{what}: exit {run.ExitCode}");
            Assert.Contains(run.Operations, o => o.Database == "Sales" && o.Kind == Core.Events.OperationKind.Backup && o.Status == OperationStatus.Completed);
        }
    }

    [Fact]
    public async Task Given_an_errorlog_cut_in_the_timestamp_of_its_last_line_when_analysed_then_the_cut_is_located_and_not_glued_to_the_database_name()
    {
        // Given the restore sample cut 168 bytes in: its first line and the head of the second, "2024-05-"
        var bytes = File.ReadAllBytes(CliRun.Sample("log-zeroing-restore.log"))[..168];

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "restore.log");

        // Then
        run.AssertInvariants("cut at byte 168");
        Assert.Equal(2, run.ExitCode);
        Assert.Equal("line 2", Assert.Single(run.Problems).Location);
        Assert.All(run.Operations, o => Assert.Equal("SalesArchive", o.Database));
    }
}
