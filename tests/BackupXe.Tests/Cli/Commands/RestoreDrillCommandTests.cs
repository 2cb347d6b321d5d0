using System.CommandLine;
using System.Text.Json;
using BackupXe.Cli.Commands;
using BackupXe.Tests.SqlServer.Drill;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using BackupXe.Testing.Tds;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>
/// <c>backupxe restore-drill</c> end to end through the real driver against two TDS doubles (<see cref="DrillOverTds"/>):
/// PROD, whose msdb holds SalesDB's chain (a full, a differential, three log backups on one media set), and TEST, where
/// the drill restores. Every phase is timed on the fake clock the double moves, never on real time.
/// </summary>
public sealed class RestoreDrillCommandTests : IDisposable
{
    private const string Scratch = "SalesDB_drill_202611290800";
    private readonly FakeClock _clock = new(new DateTimeOffset(2026, 11, 29, 8, 0, 0, TimeSpan.Zero));
    private readonly TempDirectory _directory = new();

    public RestoreDrillCommandTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        Prod = new DrillOverTds(_clock, "PRODSQL01");
        Test = new DrillOverTds(_clock, "TESTSQL01");
    }

    private DrillOverTds Prod { get; }

    private DrillOverTds Test { get; }

    public void Dispose() => _directory.Dispose();

    private async Task<CliRun> DrillAsync(CancellationToken cancellationToken, params string[] extra)
    {
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        return await RunAsync(test, cancellationToken, ["--from-server", prod.Server, .. extra]);
    }

    private async Task<CliRun> RunAsync(TdsServerDouble target, CancellationToken cancellationToken, string[] extra)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var console = CliRun.Captured(output, error) with { Time = _clock };
        var root = new RootCommand { RestoreDrillCommand.Create(console) };
        string[] args = ["restore-drill", .. TdsClient.CliArguments(target), "--database", "SalesDB", .. extra];
        var exit = await root.Parse(args).InvokeAsync(BackupXe.Cli.Program.Invocation(console), cancellationToken);
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    private List<string> Changes() => Test.Statements.Where(s => !s.StartsWith("RESTORE HEADERONLY", StringComparison.Ordinal)
        && !s.StartsWith("RESTORE FILELISTONLY", StringComparison.Ordinal) && !s.StartsWith("RESTORE VERIFYONLY", StringComparison.Ordinal)).ToList();

    [Fact]
    public async Task Without_execute_the_plan_names_the_chain_the_moves_the_space_the_permissions_and_the_estimate_and_changes_nothing()
    {
        // When
        var run = await DrillAsync(CancellationToken.None);

        // Then: only the full backup's file list was read on TEST
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        Assert.Empty(Changes());
        Assert.Single(Test.Statements);
        Assert.Contains($"Restore drill of [SalesDB] from 127.0.0.1", run.Output, StringComparison.Ordinal);
        Assert.Contains($"into [{Scratch}]", run.Output, StringComparison.Ordinal);
        Assert.Contains(@"    full         2026-11-28 01:00:00     100 GB  FILE = 1  \\backup01\sql\SalesDB_FULL.bak", run.Output, StringComparison.Ordinal);
        Assert.Contains("    log          2026-11-28 09:00:00 ", run.Output, StringComparison.Ordinal);
        Assert.Contains(@"  FILE = 3  \\backup01\sql\SalesDB_LOG.trn", run.Output, StringComparison.Ordinal);
        Assert.Contains($@"    SalesDB_log (L, 20 GB) -> L:\SQLLogs\{Scratch}_3.ldf", run.Output, StringComparison.Ordinal);
        Assert.Contains(@"    D:\SQLData\: needs 220 GB, 500 GB free", run.Output, StringComparison.Ordinal);
        Assert.Contains("CREATE DATABASE (in master) or CREATE ANY DATABASE (dbcreator): RESTORE of a database that does not exist: held", run.Output, StringComparison.Ordinal);
        Assert.Contains("  estimate  ", run.Output, StringComparison.Ordinal);
        Assert.Contains($"MOVE N'SalesDB' TO N'D:\\SQLData\\{Scratch}_1.mdf'", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("REPLACE", run.Output[run.Output.IndexOf("statements, in order", StringComparison.Ordinal)..], StringComparison.Ordinal);
        Assert.DoesNotContain(TdsClient.Password, run.Output + run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Execute_restores_full_differential_and_logs_recovers_checks_and_drops_in_order_with_each_phase_measured()
    {
        // When
        var run = await DrillAsync(CancellationToken.None, "--execute", "--checkdb", "--format", "json");

        // Then: the checks of each backup before the first restore, then the chain, recovery, CHECKDB and the drop
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        var kinds = Test.Statements.Skip(1).Select(s => string.Join(' ', s.Split([' ', '\n'], 3).Take(2))).ToList();
        string[] checks = ["RESTORE HEADERONLY", "RESTORE FILELISTONLY", "RESTORE VERIFYONLY"];
        Assert.Equal([.. Enumerable.Repeat(checks, 5).SelectMany(c => c), "RESTORE DATABASE", "RESTORE DATABASE", "RESTORE LOG", "RESTORE LOG", "RESTORE LOG", "RESTORE DATABASE", "DBCC CHECKDB", "DROP DATABASE"], kinds);
        Assert.Contains("WITH RECOVERY", Test.Statements[^3], StringComparison.Ordinal);
        Assert.Contains("FILE = 3", Test.Statements[^4], StringComparison.Ordinal);
        Assert.DoesNotContain(Scratch, Test.Databases);
        foreach (var sql in Test.Statements)
        {
            new TSql150Parser(true).Parse(new StringReader(sql), out var errors);
            Assert.True(errors.Count == 0, sql);
        }

        // and every phase as the fake clock measured it: 11 min + 2 min + 3 x 30 s + 3 min of restore and recovery
        using var json = JsonDocument.Parse(run.Output);
        var result = json.RootElement.GetProperty("restoreDrill").GetProperty("result");
        Assert.Equal("completed", result.GetProperty("status").GetString());
        Assert.Equal(1050, result.GetProperty("restoreSeconds").GetDouble(), 3);
        Assert.Equal(1050 + 5 * 63 + 300 + 4, result.GetProperty("totalSeconds").GetDouble(), 3);
        Assert.Equal(JsonValueKind.Null, result.GetProperty("leftBehind").ValueKind);
        var phases = result.GetProperty("phases").EnumerateArray().ToList();
        Assert.Equal(660, phases.Single(p => p.GetProperty("phase").GetString() == "restore full").GetProperty("seconds").GetDouble(), 3);
        Assert.Equal(300, phases.Single(p => p.GetProperty("phase").GetString() == "checkdb").GetProperty("seconds").GetDouble(), 3);
        Assert.Equal("drop", phases[^1].GetProperty("phase").GetString());
    }

    [Fact]
    public async Task On_the_source_server_the_drill_is_refused_even_reached_by_another_address_unless_allowed()
    {
        // Given: a second listener that reports PROD's machine and instance
        var alias = new DrillOverTds(_clock, "PRODSQL01");
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var prodAgain = TdsServerDouble.Start(alias.Sql.Script);

        // When
        var refused = await RunAsync(prodAgain, CancellationToken.None, ["--from-server", prod.Server, "--execute"]);
        var allowed = await RunAsync(prodAgain, CancellationToken.None, ["--from-server", prod.Server, "--allow-source-server"]);

        // Then
        Assert.True(refused.ExitCode == RestoreDrillCommand.Refused, refused.Error + refused.Output);
        Assert.Contains(@"is the source server (PRODSQL01\MSSQLSERVER", refused.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(alias.Statements, s => !s.StartsWith("RESTORE FILELISTONLY", StringComparison.Ordinal));
        Assert.True(allowed.ExitCode == 0, allowed.Error + allowed.Output);
        Assert.Contains("allowed by --allow-source-server", allowed.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_create_database_nothing_runs_and_the_grant_is_named()
    {
        // Given
        Test.CreateDatabase = false;

        // When
        var run = await DrillAsync(CancellationToken.None, "--execute");

        // Then
        Assert.True(run.ExitCode == RestoreDrillCommand.Refused, run.Error + run.Output);
        Assert.Contains("refused: the login lacks CREATE DATABASE", run.Output, StringComparison.Ordinal);
        Assert.Contains("GRANT CREATE ANY DATABASE TO <login>;", run.Output, StringComparison.Ordinal);
        Assert.Empty(Changes());
    }

    [Fact]
    public async Task A_restore_the_server_refuses_with_262_fails_the_drill_and_leaves_nothing()
    {
        // Given: HAS_PERMS_BY_NAME says yes, the server's RESTORE says no
        Test.DeniedStatement = "RESTORE DATABASE";

        // When
        var run = await DrillAsync(CancellationToken.None, "--execute");

        // Then
        Assert.True(run.ExitCode == RestoreDrillCommand.Failed, run.Error + run.Output);
        Assert.Contains("failure: restore full failed: CREATE DATABASE permission denied in database 'master'.", run.Output, StringComparison.Ordinal);
        Assert.Contains("(error 262)", run.Output, StringComparison.Ordinal);
        Assert.Contains("left on the server: nothing", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(Changes(), s => s.StartsWith("RESTORE LOG", StringComparison.Ordinal) || s.StartsWith("DROP", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_missing_log_backup_file_fails_the_checks_before_any_restore()
    {
        // Given
        Test.MissingDevices.Add(DrillOverTds.Log);

        // When
        var run = await DrillAsync(CancellationToken.None, "--execute");

        // Then
        Assert.True(run.ExitCode == RestoreDrillCommand.Failed, run.Error + run.Output);
        Assert.Contains(@"failure: planning failed: Cannot open backup device '\\backup01\sql\SalesDB_LOG.trn'. Operating system error 2", run.Output, StringComparison.Ordinal);
        Assert.Contains("(error 3201)", run.Output, StringComparison.Ordinal);
        Assert.Empty(Changes());
        Assert.Contains("left on the server: nothing", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Too_little_free_space_refuses_the_plan_and_a_volume_that_fills_fails_the_restore_leaving_nothing()
    {
        // Given: first a volume that reports 100 GB free for 220 GB of data files
        Test.Volumes[0] = (@"D:\", 100L << 30);

        // When
        var refused = await DrillAsync(CancellationToken.None, "--execute");
        Test.Volumes[0] = (@"D:\", 500L << 30);
        Test.DiskFull = true;
        var failed = await DrillAsync(CancellationToken.None, "--execute");

        // Then
        Assert.True(refused.ExitCode == RestoreDrillCommand.Refused, refused.Error + refused.Output);
        Assert.Contains(@"refused: D:\SQLData\: the scratch files need 220 GB and the volume has 100 GB free", refused.Output, StringComparison.Ordinal);
        Assert.True(failed.ExitCode == RestoreDrillCommand.Failed, failed.Error + failed.Output);
        Assert.Contains("(error 3257)", failed.Output, StringComparison.Ordinal);
        Assert.Contains("left on the server: nothing", failed.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(Scratch, Test.Databases);
    }

    [Fact]
    public async Task A_drill_stopped_during_a_log_restore_drops_its_scratch_database_and_says_nothing_is_left()
    {
        // Given: Ctrl-C while the second log backup restores; the drill stops before the next step
        using var cancel = new CancellationTokenSource();
        var logs = 0;
        Test.Intercept = sql =>
        {
            if (sql.StartsWith("RESTORE LOG", StringComparison.Ordinal) && Interlocked.Increment(ref logs) == 2)
            {
                cancel.Cancel();
            }

            return null;
        };

        // When
        var run = await DrillAsync(cancel.Token, "--execute").WaitAsync(TimeSpan.FromSeconds(60));

        // Then
        Assert.True(run.ExitCode == RestoreDrillCommand.Cancelled, run.Error + run.Output);
        Assert.Equal("DROP DATABASE [" + Scratch + "];", Test.Statements[^1]);
        Assert.Equal(2, Test.StatementsOf("RESTORE LOG").Count);
        Assert.DoesNotContain(Test.Statements, s => s.Contains("WITH RECOVERY", StringComparison.Ordinal));
        Assert.DoesNotContain(Scratch, Test.Databases);
        Assert.Contains("Drill cancelled", run.Output, StringComparison.Ordinal);
        Assert.Contains("left on the server: nothing", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_drill_stopped_while_a_restore_runs_on_the_server_cancels_it_drops_the_scratch_database_and_exits_130()
    {
        // When: Ctrl-C a minute (of the fake clock) into the second log restore, which the server is still running
        var (run, attentions) = await CtrlCDuringTheSecondLogRestoreAsync();

        // Then: the RESTORE was cancelled on the server (one ATTENTION), nothing after it ran but the drop
        Assert.True(run.ExitCode == RestoreDrillCommand.Cancelled, run.Error + run.Output);
        Assert.Equal(1, attentions);
        Assert.Equal(2, Test.StatementsOf("RESTORE LOG").Count);
        Assert.DoesNotContain(Test.Statements, s => s.Contains("WITH RECOVERY", StringComparison.Ordinal));
        Assert.Equal("DROP DATABASE [" + Scratch + "];", Test.Statements[^1]);
        Assert.DoesNotContain(Scratch, Test.Databases);
        using var json = JsonDocument.Parse(run.Output);
        var result = json.RootElement.GetProperty("restoreDrill").GetProperty("result");
        Assert.Equal("cancelled", result.GetProperty("status").GetString());
        Assert.Equal("cancelled during restore log", result.GetProperty("failure").GetString());
        Assert.Equal(JsonValueKind.Null, result.GetProperty("leftBehind").ValueKind);
        var phases = result.GetProperty("phases").EnumerateArray().ToList();
        var stopped = phases.Single(p => p.GetProperty("outcome").GetString() == "cancelled");
        Assert.Equal("restore log", stopped.GetProperty("phase").GetString());
        Assert.Equal(60, stopped.GetProperty("seconds").GetDouble(), 3);
        Assert.Equal("drop", phases[^1].GetProperty("phase").GetString());
        Assert.Equal("completed", phases[^1].GetProperty("outcome").GetString());
    }

    [Fact]
    public async Task A_drill_stopped_while_a_restore_runs_whose_drop_is_refused_names_the_database_left_its_files_and_the_drop()
    {
        // Given: the login may restore but not drop (3701)
        Test.DropRefused = true;

        // When
        var (run, _) = await CtrlCDuringTheSecondLogRestoreAsync("console");

        // Then: still exit 130, and what is left is said exactly, with the statement that removes it
        Assert.True(run.ExitCode == RestoreDrillCommand.Cancelled, run.Error + run.Output);
        Assert.Contains(Scratch, Test.Databases);
        Assert.Contains($"left on the server: [{Scratch}] on 127.0.0.1", run.Output, StringComparison.Ordinal);
        Assert.Contains($"with its files (D:\\SQLData\\{Scratch}_1.mdf, D:\\SQLData\\{Scratch}_2.ndf, L:\\SQLLogs\\{Scratch}_3.ldf)", run.Output, StringComparison.Ordinal);
        Assert.Contains($"the DROP was refused (Cannot drop the database '{Scratch}', because it does not exist or you do not have permission. (error 3701))", run.Output, StringComparison.Ordinal);
        Assert.Contains($"remove it with DROP DATABASE [{Scratch}];", run.Output, StringComparison.Ordinal);
    }

    /// <summary>
    /// Runs the drill with the second RESTORE LOG held by the double (nothing sent until ATTENTION, as a busy server),
    /// then presses Ctrl-C from a timer a minute later on the fake clock; the only real-time loop waits for the batch to
    /// reach the double. Gives the run and the ATTENTIONs the double acknowledged.
    /// </summary>
    private async Task<(CliRun Run, int Attentions)> CtrlCDuringTheSecondLogRestoreAsync(string format = "json")
    {
        using var cancel = new CancellationTokenSource();
        var logs = 0;
        Test.Intercept = sql => sql.StartsWith("RESTORE LOG", StringComparison.Ordinal) && Interlocked.Increment(ref logs) == 2 ? new TdsResponse().Stall() : null;
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        var running = RunAsync(test, cancel.Token, ["--from-server", prod.Server, "--execute", "--format", format]);
        // Bounded: a drill waiting on the fake clock before it reaches the stall would otherwise hold the suite at no CPU.
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (test.Stalled == 0 && !running.IsCompleted)
        {
            Assert.True(waited.Elapsed < TimeSpan.FromSeconds(60), "the second RESTORE LOG did not reach the double within 60 s");
            await Task.WhenAny(running, Task.Delay(1));
        }

        Assert.False(running.IsCompleted, "the drill ended before its second log restore reached the server");
        var ctrlC = Task.Delay(TimeSpan.FromMinutes(1), _clock).ContinueWith(_ => cancel.Cancel(), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        _clock.Advance(TimeSpan.FromMinutes(1));
        await ctrlC.WaitAsync(TimeSpan.FromSeconds(60));
        return (await running.WaitAsync(TimeSpan.FromSeconds(60)), test.Attentions);
    }

    [Fact]
    public async Task Keep_leaves_the_scratch_database_and_names_it_with_its_drop()
    {
        // When
        var run = await DrillAsync(CancellationToken.None, "--execute", "--keep");

        // Then
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        Assert.Contains(Scratch, Test.Databases);
        Assert.DoesNotContain(Test.Statements, s => s.StartsWith("DROP", StringComparison.Ordinal));
        Assert.Contains($"left on the server: [{Scratch}] on 127.0.0.1", run.Output, StringComparison.Ordinal);
        Assert.Contains($"kept by --keep with its files (D:\\SQLData\\{Scratch}_1.mdf", run.Output, StringComparison.Ordinal);
        Assert.Contains($"remove it with DROP DATABASE [{Scratch}];", run.Output, StringComparison.Ordinal);
    }
    [Fact]
    public async Task A_drill_stored_in_the_history_is_cited_beside_the_next_restore_estimate()
    {
        // Given: a completed drill stored in the history (migration 4's restore_drills)
        var file = _directory.File("history.db");
        var drill = await DrillAsync(CancellationToken.None, "--execute", "--history", file);
        Assert.True(drill.ExitCode == 0, drill.Error + drill.Output);

        // When: PROD's restore estimate with that history
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        var estimate = await CliRun.RunAsync(["history", "restore-estimate", "-d", "SalesDB", "--history", file, .. TdsClient.CliArguments(prod)]);
        var json = await CliRun.RunAsync(["history", "restore-estimate", "-d", "SalesDB", "--history", file, "--format", "json", .. TdsClient.CliArguments(prod)]);

        // Then: the measured 17 min 30 s of restore and recovery, and its date, beside the estimate
        Assert.True(estimate.ExitCode == 0, estimate.Error);
        Assert.Contains($"; measured on 2026-11-29 by a restore drill into [{Scratch}]: 17 min 30 s", estimate.Output, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(json.Output);
        Assert.Equal($"measured on 2026-11-29 by a restore drill into [{Scratch}]: 17 min 30 s", document.RootElement.GetProperty("restoreEstimates")[0].GetProperty("lastDrill").GetString());
    }
    [Fact]
    public async Task Every_field_the_json_report_writes_is_named_in_the_json_schema_page()
    {
        // Given: a drill run to its end with a history, so every field is written
        var file = _directory.File("history.db");
        await DrillAsync(CancellationToken.None, "--execute", "--history", file);
        var run = await DrillAsync(CancellationToken.None, "--execute", "--history", file, "--scratch-name", "SalesDB_second", "--format", "json");
        var page = File.ReadAllText(Path.Combine(Repository.Root, "docs", "json-schema.md"));
        var start = page.IndexOf("`restore-drill --format json`", StringComparison.Ordinal);
        var paragraph = page[start..page.IndexOf("\n\n", start, StringComparison.Ordinal)];

        // When: the names under restoreDrill, the estimate's own (documented with restoreEstimates) left out
        using var document = JsonDocument.Parse(run.Output);
        var names = new SortedSet<string>(StringComparer.Ordinal);
        void Walk(JsonElement element)
        {
            if (element.ValueKind == JsonValueKind.Object)
            {
                foreach (var property in element.EnumerateObject())
                {
                    names.Add(property.Name);
                    if (property.Name != "estimate")
                    {
                        Walk(property.Value);
                    }
                }
            }
            else if (element.ValueKind == JsonValueKind.Array)
            {
                foreach (var item in element.EnumerateArray())
                {
                    Walk(item);
                }
            }
        }

        Walk(document.RootElement);

        // Then
        Assert.True(run.ExitCode == 0, run.Error + run.Output);
        Assert.Contains("lastDrill", names);
        Assert.Contains("leftBehind", names);
        Assert.DoesNotContain(names, name => !System.Text.RegularExpressions.Regex.IsMatch(paragraph, $@"[`{{ ]{name}[`,}}]"));
    }
}
