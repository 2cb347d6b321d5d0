using System.CommandLine;
using System.Text.Json;
using BackupXe.Cli.Commands;
using BackupXe.Tests.Cli.Rendering;
using BackupXe.Tests.SqlServer.Drill;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// <c>restore-drill --execute</c> under the capture session, through the real driver against the TDS double: each RESTORE
/// writes its backup_restore_progress_trace events (the trace's restore vocabulary, timed on the fake clock) to the
/// session's file, which the drill reads as the tuner's trials are read. The statements are timed on the fake clock; the
/// capture's file is polled on real time (the live source's one-second poll), about a second per RESTORE.
/// </summary>
public sealed class RestoreDrillCaptureTests : IDisposable
{
    private const string Scratch = "SalesDB_drill_202611290800";
    private readonly FakeClock _clock = new(new DateTimeOffset(2026, 11, 29, 8, 0, 0, TimeSpan.Zero));
    private readonly TempDirectory _directory = new();

    public RestoreDrillCaptureTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        Prod = new DrillOverTds(_clock, "PRODSQL01");
        Test = new DrillOverTds(_clock, "TESTSQL01").RunCaptureSession();
    }

    private DrillOverTds Prod { get; }

    private DrillOverTds Test { get; }

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task Each_restore_reports_its_phases_inside_the_server_with_times_rates_and_its_diagnosis()
    {
        // When
        var run = await DrillAsync("--execute", "--format", "json");

        // Then: the drill completed, and every RESTORE of the chain was found in the capture
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        using var json = JsonDocument.Parse(run.Output);
        var drill = json.RootElement.GetProperty("restoreDrill");
        Assert.Contains(drill.GetProperty("notes").EnumerateArray(), n => n.GetString()!.StartsWith("each RESTORE is measured inside the server by the capture session", StringComparison.Ordinal));
        var phases = drill.GetProperty("result").GetProperty("phases").EnumerateArray().ToList();
        var restores = phases.Where(p => p.GetProperty("phase").GetString() is "restore full" or "restore differential" or "restore log" or "recovery").ToList();
        Assert.Equal(6, restores.Count);
        Assert.All(restores, r => Assert.Equal(JsonValueKind.Object, r.GetProperty("capture").ValueKind));
        Assert.All(phases.Except(restores), p => Assert.Equal(JsonValueKind.Null, p.GetProperty("capture").ValueKind));

        // the full restore: each file zeroed (the data files at 1,024 MB/s, the 20 GB log in the background over 624.7 s),
        // 100 GB transferred in 414.6 s, the wait for the log zero, redo; the whole 659.5 s in the server
        var full = restores[0].GetProperty("capture");
        Assert.Equal(659.5, full.GetProperty("seconds").GetDouble(), 1);
        var inside = full.GetProperty("phases").EnumerateArray().ToList();
        var zeroing = inside.Where(p => p.GetProperty("name").GetString() == "zeroing").ToList();
        Assert.Equal(3, zeroing.Count);
        Assert.Equal($@"D:\SQLData\{Scratch}_1.mdf", zeroing[0].GetProperty("detail").GetString());
        Assert.Equal(200, zeroing[0].GetProperty("seconds").GetDouble(), 1);
        Assert.Equal(1024, zeroing[0].GetProperty("megabytesPerSecond").GetDouble(), 0);
        var log = zeroing.Single(z => z.GetProperty("detail").GetString()!.EndsWith(".ldf", StringComparison.Ordinal));
        Assert.Equal(624.7, log.GetProperty("seconds").GetDouble(), 1);
        Assert.Equal(20 * 1024 / 624.7, log.GetProperty("megabytesPerSecond").GetDouble(), 1);
        var transfer = inside.Single(p => p.GetProperty("name").GetString() == "transfer-data");
        Assert.Equal(100L << 30, transfer.GetProperty("bytes").GetInt64());
        Assert.Contains(inside, p => p.GetProperty("name").GetString() == "wait-log-zero");
        Assert.Contains(inside, p => p.GetProperty("name").GetString() == "redo");
        Assert.Equal(JsonValueKind.Object, full.GetProperty("verdict").ValueKind);

        // the recovery: bringing the database online, 178 s of the step's 180 s
        var recovery = restores[^1].GetProperty("capture").GetProperty("phases").EnumerateArray().Single(p => p.GetProperty("name").GetString() == "recovery");
        Assert.Equal(178.5, recovery.GetProperty("seconds").GetDouble(), 1);
    }

    [Fact]
    public async Task The_console_report_shows_the_phases_inside_each_restore_and_each_diagnosis()
    {
        // When
        var run = await DrillAsync("--execute");

        // Then
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        Assert.Contains("  inside each RESTORE, as the capture session timed it:", run.Output, StringComparison.Ordinal);
        var lines = run.Output.Split('\n');
        Assert.Contains(lines, l => l.StartsWith("    restore full ", StringComparison.Ordinal) && l.Contains($@"zeroing D:\SQLData\{Scratch}_1.mdf", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("    restore log 3 ", StringComparison.Ordinal) && l.Contains(" redo ", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("  restore full: ", StringComparison.Ordinal) && l.Contains(" in the server", StringComparison.Ordinal));
        Assert.DoesNotContain("not measured inside the server", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_markdown_report_has_the_same_tables()
    {
        // When
        var run = await DrillAsync("--execute", "--format", "markdown");

        // Then: the phases, then the phases inside each RESTORE, as pipe tables with their numbers right-aligned
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        Assert.Contains("| phase | time | seconds | statements |\n|---|---|---:|---:|\n| planning | 5 min 15 s | 315.000 | 15 |", run.Output.ReplaceLineEndings("\n"), StringComparison.Ordinal);
        Assert.Contains("| restore | phase inside the server | time | seconds | bytes | rate |", run.Output, StringComparison.Ordinal);
        Assert.Contains("| restore full | transfer-data | ", run.Output, StringComparison.Ordinal);
        Assert.Contains("- restore full: ", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_the_capture_session_the_plan_says_the_phases_inside_each_restore_are_not_measured()
    {
        // Given: a target where the session is not installed
        var bare = new DrillOverTds(_clock, "TESTSQL02");
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(bare.Sql.Script);
        var output = new StringWriter();
        var console = CliRun.Captured(output, new StringWriter()) with { Time = _clock };
        var root = new RootCommand { RestoreDrillCommand.Create(console) };

        // When
        var exit = await root.Parse(["restore-drill", .. TdsClient.CliArguments(test), "--database", "SalesDB", "--from-server", prod.Server])
            .InvokeAsync(BackupXe.Cli.Program.Invocation(console), CancellationToken.None);

        // Then: the plan stands, and says what will not be measured
        Assert.Equal(0, exit);
        Assert.Contains("  note: the phases inside each RESTORE (zeroing, copy, redo, recovery) are not measured: ", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_next_restore_estimate_is_timed_by_the_rates_the_drill_measured_and_says_so()
    {
        // Given: a drill stored in the history
        var file = _directory.File("history.db");
        var drill = await DrillAsync("--execute", "--history", file);
        Assert.True(drill.ExitCode == 0, drill.Error + drill.Output);

        // When: PROD's restore estimate with that history
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        var run = await CliRun.RunAsync(["history", "restore-estimate", "-d", "SalesDB", "--history", file, "--format", "json", .. TdsClient.CliArguments(prod)]);

        // Then: the copy at the drill's transfer rate, the log restores at its, the recovery as it measured it, each saying so
        Assert.True(run.ExitCode == 0, run.Error);
        using var json = JsonDocument.Parse(run.Output);
        var estimate = json.RootElement.GetProperty("restoreEstimates")[0];
        var phases = estimate.GetProperty("phases").EnumerateArray().ToDictionary(p => p.GetProperty("phase").GetString()!);
        const string Measured = "measured on 2026-11-29 by a restore drill into [" + Scratch + "] on ";
        foreach (var phase in new[] { "copy full + differential", "log restore", "recovery" })
        {
            Assert.Equal("measured", phases[phase].GetProperty("basis").GetString());
            Assert.StartsWith(Measured, phases[phase].GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        // The recovery: the redo inside the full (21.8 s) and differential (9.9 s) restores and the 180 s recovery step.
        Assert.Equal(180 + 21.8 + 9.9, phases["recovery"].GetProperty("lowSeconds").GetDouble(), 1);
        Assert.Contains(estimate.GetProperty("notes").EnumerateArray(), n => n.GetString()!.StartsWith("calibrated: the phases a restore drill measured", StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_html_report_carries_the_plan_the_phases_and_the_phases_inside_each_restore()
    {
        // When
        var run = await DrillAsync("--execute", "--format", "html");

        // Then: the drill's section of the house's page, the servers' addresses (a port chosen per run) named as such
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        var start = run.Output.IndexOf("<section class=\"block\" id=\"restore-drill\"", StringComparison.Ordinal);
        Assert.True(start >= 0, run.Output);
        var section = run.Output[start..(run.Output.IndexOf("</section>", start, StringComparison.Ordinal) + "</section>".Length)];
        await Snapshot.MatchAsync("restore-drill.html.txt", section.Replace(run.Target, "TEST", StringComparison.Ordinal).Replace(run.Source, "PROD", StringComparison.Ordinal));
    }

    private async Task<DrillRun> DrillAsync(params string[] extra)
    {
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        var output = new StringWriter();
        var error = new StringWriter();
        var console = CliRun.Captured(output, error) with { Time = _clock };
        var root = new RootCommand { RestoreDrillCommand.Create(console) };
        string[] args = ["restore-drill", .. TdsClient.CliArguments(test), "--database", "SalesDB", "--from-server", prod.Server, .. extra];
        var exit = await root.Parse(args).InvokeAsync(BackupXe.Cli.Program.Invocation(console), CancellationToken.None);
        return new DrillRun(exit, output.ToString(), error.ToString(), test.Server, prod.Server);
    }

    private sealed record DrillRun(int ExitCode, string Output, string Error, string Target, string Source);
}
