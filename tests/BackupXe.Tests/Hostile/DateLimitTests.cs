using System.Text;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Dates at the ends of <see cref="DateTime"/>'s range, which no server's clock shows but a hand-edited or damaged
/// file holds: each is refused where it is read (one located line, exit code 2), and every later command, row and
/// file is still read. Before the range check, a day either side of them threw and ended the whole import.
/// </summary>
public sealed class DateLimitTests : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "backupxe-tests", Guid.NewGuid().ToString("N"));

    public DateLimitTests() => Directory.CreateDirectory(_folder);

    [Fact]
    public async Task Given_ola_output_with_dates_at_the_datetime_limits_when_imported_then_each_is_located_and_every_later_command_and_file_is_imported()
    {
        // Given
        var limits = LimitsOutput().WriteTo(_folder, "limits.txt");
        var header = HeaderOnlyFinishingIn9999();
        var good = new OlaJobOutput().Command(new DateTime(2024, 6, 2, 1, 0, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Later] TO DISK = N'X:\\L.bak'", pages: 1000, engineSeconds: 4)
            .WriteTo(_folder, "good.txt");

        // When
        var run = await CliRun.RunAsync("history", "import", "--path", Path.Combine(_folder, "h.db"), limits, header, good);
        var listed = await CliRun.RunAsync("history", "--path", Path.Combine(_folder, "h.db"), "--format", "json");

        // Then
        Assert.True(run.ExitCode == 2, $"exit {run.ExitCode}\n{run.Error}\n{run.Output}");
        Assert.DoesNotContain("un-representable", run.Error);
        var problems = run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains(problems, p => p.StartsWith($"backupxe: {limits}: line 11: date and time '0001-01-01 00:00:00' outside", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith($"backupxe: {limits}: line 19: date and time '0001-01-01 00:00:01' outside", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith($"backupxe: {limits}: line 21: date and time '9999-12-31 23:59:58' outside", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith($"backupxe: {limits}: line 29: date and time '9999-12-31 23:59:59' outside", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith($"backupxe: {header}: line 2: a date outside", StringComparison.Ordinal));
        Assert.Contains("\"database\": \"Later\"", listed.Output);
        Assert.Contains("\"database\": \"After\"", listed.Output);
        Assert.DoesNotContain("\"database\": \"AtTheEnd\"", listed.Output);
        Assert.DoesNotContain("\"database\": \"StartsAtYear1\"", listed.Output);
    }

    [Fact]
    public async Task Given_ola_output_with_dates_at_the_datetime_limits_when_analysed_then_each_is_located_and_later_commands_are_reported()
    {
        // Given
        var bytes = Encoding.UTF8.GetBytes(LimitsOutput().ToString());

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "limits.txt");

        // Then
        run.AssertInvariants("dates at the DateTime limits");
        Assert.Equal(2, run.ExitCode);
        Assert.Equal(["line 11", "line 19", "line 21", "line 29"], run.Problems.Select(p => p.Location));
        Assert.Contains(run.Operations, o => o.Database == "After");

        // The commands whose stamps were refused are still read from their engine messages, with no start invented.
        Assert.All(run.Operations.Where(o => o.Database is "AtTheEnd" or "StartsAtYear1"), o => Assert.Null(o.Start));
        Assert.Equal(2, run.Operations.Count(o => o.Database is "AtTheEnd" or "StartsAtYear1"));
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    // Lines 11 and 19 open and close the first command, lines 21 and 29 the second; the third is sound.
    private static OlaJobOutput LimitsOutput() => new OlaJobOutput()
        .Command(DateTime.MinValue, TimeSpan.FromSeconds(1), "BACKUP DATABASE [StartsAtYear1] TO DISK = N'X:\\A.bak'", pages: 1000, engineSeconds: 1)
        .Command(new DateTime(9999, 12, 31, 23, 59, 58), TimeSpan.FromSeconds(1), "BACKUP DATABASE [AtTheEnd] TO DISK = N'X:\\B.bak'", pages: 1000, engineSeconds: 1)
        .Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [After] TO DISK = N'X:\\C.bak'", pages: 1000, engineSeconds: 4);

    // The real RESTORE HEADERONLY result with its finish date moved to year 9999, then the same row sound again.
    private string HeaderOnlyFinishingIn9999()
    {
        var lines = File.ReadAllLines(RealWorld.Path("S07_bobsql_sql2022_s3_restore_headeronly.tsv"));
        var path = Path.Combine(_folder, "header.tsv");
        File.WriteAllLines(path, [lines[0], lines[1].Replace("2022-08-04 17:10:57.000", "9999-12-31 23:59:59.000", StringComparison.Ordinal), .. lines[1..]]);
        return path;
    }
}
