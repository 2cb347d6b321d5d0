using System.Text.Json;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// Every remedy says what it is expected to gain and on what that rests: a bound from the operation's own measures,
/// a published figure, evidence only, or that it cannot tell; never an invented percentage.
/// </summary>
public sealed class ExpectedGainsTests
{
    private static IEnumerable<string> Inputs()
    {
        var fixtures = Path.Combine(AppContext.BaseDirectory, "Fixtures");
        return Directory.EnumerateFiles(Path.Combine(fixtures, "realworld"), "*.txt")
            .Concat(Directory.EnumerateFiles(Path.Combine(fixtures, "realworld2"), "*.txt"))
            .Concat(Directory.EnumerateFiles(Path.Combine(fixtures, "errorlog"), "*.log"))
            .Concat([CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log")])
            .Order(StringComparer.Ordinal);
    }

    [Fact]
    public async Task Every_remedy_for_every_fixture_and_sample_states_its_gain()
    {
        var remedies = 0;
        foreach (var input in Inputs())
        {
            // When
            var run = await CliRun.RunAsync("analyze", input, "--format", "json");

            // Then
            using var json = JsonDocument.Parse(run.Output);
            foreach (var remedy in json.RootElement.GetProperty("operations").EnumerateArray().SelectMany(o => o.GetProperty("recommendations").EnumerateArray()))
            {
                remedies++;
                var gain = remedy.GetProperty("expectedGain");
                var basis = gain.GetProperty("basis").GetString();
                var text = gain.GetProperty("text").GetString()!;
                Assert.NotEqual(ExpectedGain.NotEstimated.Text, text);
                Assert.Contains(basis, new[] { "measured", "published", "cannot-tell", "evidence-only" });
                var bound = gain.GetProperty("atMostTimesFaster");
                if (basis == "measured")
                {
                    Assert.True(bound.GetDouble() is > 1 and < 1 / (1 - ExpectedGains.LargestBoundedShare) + 0.01, $"{input}: {text}");
                    Assert.StartsWith("At most ", text, StringComparison.Ordinal);
                }
                else
                {
                    Assert.Equal(JsonValueKind.Null, bound.ValueKind);
                }
            }
        }

        Assert.True(remedies >= 20, $"{remedies} remedies");
    }

    [Fact]
    public async Task Raising_the_buffers_of_the_starved_sample_is_bounded_by_its_buffer_waits()
    {
        // When: BACKUPBUFFER took 54% of each thread's copy-data time
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), "--format", "json");

        // Then: 1 / (1 - 0.54) for the copy; the whole backup a little less, since the rest of it stays
        using var json = JsonDocument.Parse(run.Output);
        var gain = json.RootElement.GetProperty("operations")[0].GetProperty("recommendations")[0].GetProperty("expectedGain");
        Assert.Equal("measured", gain.GetProperty("basis").GetString());
        Assert.Equal(2.08, gain.GetProperty("atMostTimesFaster").GetDouble());
        Assert.Contains("At most 2.2x faster in the copy-data phase", gain.GetProperty("text").GetString());
        Assert.Contains("BACKUPBUFFER took 54% of each thread's time", gain.GetProperty("text").GetString());
    }

    [Fact]
    public void A_wait_that_fills_nearly_all_the_time_gives_no_figure()
    {
        // Given: BACKUPIO 115 s of a 120 s backup on one device
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPIO", 1000, 115_000));

        // When
        var stripe = new BackupDiagnostician().Diagnose(operation).Recommendations.First(r => r.Id == RecommendationIds.EnableCompression);

        // Then
        Assert.Equal(GainBasis.CannotTell, stripe.ExpectedGain.Basis);
        Assert.Null(stripe.ExpectedGain.AtMostTimesFaster);
    }

    [Fact]
    public void The_device_remedies_are_bounded_by_the_device_waits()
    {
        // Given: BACKUPIO 60 s of a 120 s backup on one device
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPIO", 1000, 60_000));

        // When
        var remedies = new BackupDiagnostician().Diagnose(operation).Recommendations;

        // Then: removing half of the time doubles the speed at most
        var compression = remedies.Single(r => r.Id == RecommendationIds.EnableCompression);
        Assert.Equal(GainBasis.Measured, compression.ExpectedGain.Basis);
        Assert.Equal(2.0, compression.ExpectedGain.AtMostTimesFaster);
        Assert.Equal(GainBasis.Published, remedies.Single(r => r.Id == RecommendationIds.BlockSize65536).ExpectedGain.Basis);
    }

    [Theory]
    [InlineData("console", "Expected gain (measured bound): At most 2.2x faster")]
    [InlineData("markdown", "*Expected gain (measured bound):* At most 2.2x faster")]
    [InlineData("html", "<p class=\"gain\" data-gain=\"measured\"><em>Expected gain (measured bound):</em> At most 2.2x faster")]
    public async Task Every_format_prints_the_gain(string format, string expected)
    {
        // When
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), "--format", format, "--no-color");

        // Then
        Assert.Contains(expected, run.Output.Replace("\r\n", "\n", StringComparison.Ordinal).Replace("\n", " ", StringComparison.Ordinal), StringComparison.Ordinal);
    }
}
