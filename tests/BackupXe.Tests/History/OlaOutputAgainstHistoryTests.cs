using BackupXe.Core.Baselines;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Sources.OlaOutput;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;
using static BackupXe.Tests.Support.OlaNightlyRuns;

namespace BackupXe.Tests.History;

/// <summary>
/// <c>--history</c> on Ola Hallengren job output (docs/history.md, "This run against its history"): the job's own
/// "Date and time:" lines are the command's clock, so a run of the output is placed among the earlier runs of its series
/// (here imported from earlier job outputs, as <c>history import</c> reads them); an operation no clock places says why.
/// </summary>
public sealed class OlaOutputAgainstHistoryTests
{
    private const long HundredGiBPages = 100L * 131_072;

    private static double Seconds(double mbps) => HundredGiBPages * 8192 / 1048576.0 / mbps;

    private static BaselineContext SixUsualNights()
    {
        double[] rates = [498, 510, 505, 490, 520, 502];
        var past = Output("Sales", rates.Select((rate, night) => new Run(new DateTime(2024, 5, 1, 1, 0, 0).AddDays(night), Seconds(rate), HundredGiBPages)));
        var records = new OlaJobOutputReader("past.txt").Read(new StringReader(past)).Select(r => new InstanceOperation("SQL01", r)).ToList();
        return new BaselineContext(records, instance: null, new BaselineComparisonSettings());
    }

    private static async Task<OperationReport> AnalyseAsync(string text)
    {
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "tonight.txt");
        return Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);
    }

    [Fact]
    public async Task A_nightly_backup_three_times_slower_in_job_output_gets_its_history_comparison()
    {
        // Given: tonight's full backup of [Sales] at 156 MB/s in the job's output, six usual nights at about 500 MB/s
        var tonight = await AnalyseAsync(Output("Sales", [new Run(new DateTime(2024, 5, 7, 1, 0, 0), Seconds(156), HundredGiBPages)]));

        // When
        var history = SixUsualNights().Attach(tonight).History!;

        // Then: placed by the job's "Date and time:" lines, judged on the engine's own seconds
        Assert.Null(tonight.Start);
        Assert.Equal(new DateTime(2024, 5, 7, 1, 0, 0), tonight.ClientCommand!.Start);
        Assert.Equal((BaselineVerdict.Slower, "SQL01", "full backup of [Sales] to disk"), (history.Verdict, history.Instance, history.Series));
        Assert.Equal(3.2, history.Factor!.Value, 1);
        Assert.StartsWith("3.2x slower than usual: 156 MB/s against a median 503.5 MB/s", history.Summary, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_operation_no_clock_places_says_in_one_line_why_it_was_not_compared()
    {
        // Given: the same backup's engine lines as client output alone (no job lines around them, so no time at all)
        var engineOnly = "Processed 13107198 pages for database 'Sales', file 'Sales' on file 1.\r\n"
            + "Processed 2 pages for database 'Sales', file 'Sales_log' on file 1.\r\n"
            + "BACKUP DATABASE successfully processed 13107200 pages in 656.410 seconds (156.000 MB/sec).\r\n";
        var report = await AnalyseAsync(engineOnly);

        // When
        var history = SixUsualNights().Attach(report).History!;

        // Then
        Assert.Equal(BaselineVerdict.CannotTell, history.Verdict);
        Assert.Equal("cannot tell against its history: the input gives it no clock time (neither the server's nor the client's), "
            + "so it cannot be placed among its series' runs", history.Summary);
        Assert.DoesNotContain('\n', history.Summary);
    }
}
