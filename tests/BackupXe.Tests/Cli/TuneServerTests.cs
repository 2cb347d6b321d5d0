using System.CommandLine;
using BackupXe.Cli.Commands;
using BackupXe.SqlServer.Tuning;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Tests.Tuning;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// <c>backupxe tune --execute</c> end to end through the real driver against the TDS double (<see cref="TuneOverTds"/>),
/// whose trial backups follow the simulated server's model: the trials, the recommendation, the effective-options check,
/// and the trial files kept and listed, at the end and on Ctrl-C. A double, not SQL Server. Each tune runs on a fake
/// clock (<see cref="TuneRun"/>): a trial's window, the capture's polls and its settling pass without real waits, so
/// the classes run side by side.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class TuneServerTests
{
    [Fact]
    public async Task Execute_runs_captured_trials_through_the_driver_checks_effective_options_recommends_and_lists_the_kept_files()
    {
        await using var tune = TuneRun.Start("striping", model => model with { IgnoredOption = "BUFFERCOUNT" });
        var tds = tune.Tds;

        var run = await tune.TuneAsync("--to", tune.Directories[0], "--to", tune.Directories[1], "--window", "5s", "--time-budget", "2m");

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.True(tds.Backups.Count >= 5, string.Join("\n", tds.Backups));
        Assert.All(tds.Backups, sql => Assert.Contains("COPY_ONLY", sql, StringComparison.Ordinal));
        Assert.Contains("TO DISK = N'NUL'", tds.Backups[0], StringComparison.Ordinal);
        // Every trial was stopped at its window and confirmed gone before the next one.
        Assert.True(tds.StopChecks >= tds.Backups.Count);
        Assert.Contains("x read ceiling", run.Output, StringComparison.Ordinal);
        Assert.Contains("Recommended BACKUP statement", run.Output, StringComparison.Ordinal);
        Assert.Contains("EXECUTE dbo.DatabaseBackup", run.Output, StringComparison.Ordinal);
        // The server dropped BUFFERCOUNT: the capture's buffer configuration says so, and no such trial is recommended.
        Assert.Contains("(effective options differ: not recommended): BUFFERCOUNT asked", run.Output, StringComparison.Ordinal);
        Assert.NotEmpty(tds.FilesWritten);
        // Runs of one shape overwrite the tune's own media set: each file is listed once.
        Assert.Contains("Trial files kept on the server: " + tds.FilesWritten.Distinct().Count() + ", in ", run.Output, StringComparison.Ordinal);
        Assert.All(tds.FilesWritten, path => Assert.Contains("'" + path + "'", run.Output, StringComparison.Ordinal));
        Assert.Contains("Remove-Item -LiteralPath 'X:\\Backup\\backupxe-tune-", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(TdsClient.Password, run.Output + run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_backup_permission_nothing_runs_and_the_grant_is_named()
    {
        await using var tune = TuneRun.Start(arrange: tds => tds.BackupPermission = false);

        var run = await tune.TuneAsync();

        Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
        Assert.Empty(tune.Tds.Backups);
        Assert.Contains("The login lacks BACKUP DATABASE on [Sales]", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_history_that_cannot_take_the_result_stops_the_tune_before_any_trial()
    {
        await using var tune = TuneRun.Start();
        using var folder = new TempDirectory();
        var foreign = folder.File("other.db");
        await using (var connection = new Microsoft.Data.Sqlite.SqliteConnection($"Data Source={foreign};Pooling=False"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = "CREATE TABLE invoices (id INTEGER);";
            await command.ExecuteNonQueryAsync();
        }

        var run = await tune.TuneAsync("--history", foreign);

        Assert.Equal(1, run.ExitCode);
        Assert.Empty(tune.Tds.Backups);
        Assert.Contains("another program's SQLite database", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_create_database_no_trial_runs_and_the_grant_is_named()
    {
        await using var tune = TuneRun.Start(arrange: tds => tds.RestorePermission = false);
        var tds = tune.Tds;

        var run = await tune.TuneAsync("--window", "5s", "--time-budget", "1m",
            "--restore", "--restore-from", @"Z:\Sales.bak", "--scratch-dir", @"X:\Scratch");

        Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
        Assert.True(tds.Backups.Count == 0, run.Output);
        Assert.Empty(tds.Restores);
        Assert.Contains("GRANT CREATE ANY DATABASE TO <login>;", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false, "CREATE TABLE", "GRANT CREATE TABLE TO [tuner]]x]; GRANT ALTER ON SCHEMA::[dbo] TO [tuner]]x];")]
    [InlineData(false, "ALTER", "GRANT CREATE TABLE TO [tuner]]x]; GRANT ALTER ON SCHEMA::[dbo] TO [tuner]]x];")]
    [InlineData(true, "INSERT", "GRANT INSERT, SELECT ON [dbo].[tune_runs] TO [tuner]]x];")]
    public async Task Without_the_permission_the_central_table_needs_nothing_runs_and_the_grant_is_named(bool tableExists, string missing, string grant)
    {
        await using var tune = TuneRun.Start(arrange: tds =>
        {
            tds.TuneTableExists = tableExists;
            tds.RepositoryGrants.Remove(missing);
        });
        var tds = tune.Tds;

        var run = await tune.TuneAsync("--window", "5s", "--time-budget", "1m",
            "--history-server", tune.Server.Server, "--history-database", "BackupXe History");

        Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
        Assert.Equal(["ready"], tds.Order);
        Assert.Empty(tds.TuneTableDdl);
        Assert.Empty(tds.Backups);
        Assert.Contains(grant, run.Error, StringComparison.Ordinal);
        Assert.Contains("[BackupXe History]", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_url_without_its_credential_refuses_the_tune_before_any_trial_naming_the_create_credential()
    {
        await using var tune = TuneRun.Start(Shapes.UrlBlockBlob(), Shapes.BlobContainers,
            tds => tds.Credentials.Add(("https://backupxe.blob.core.windows.net/trials", "SHARED ACCESS SIGNATURE")));
        var tds = tune.Tds;

        var run = await tune.TuneAsync("--to", Shapes.BlobContainers[0], "--to", Shapes.BlobContainers[1], "--window", "5s", "--time-budget", "2m");

        Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
        Assert.Empty(tds.Backups);
        Assert.Contains("No credential for https://backupxe.blob.core.windows.net/trials2 in sys.credentials", run.Output, StringComparison.Ordinal);
        Assert.Contains("CREATE CREDENTIAL [https://backupxe.blob.core.windows.net/trials2] WITH IDENTITY = 'SHARED ACCESS SIGNATURE'", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("No credential for https://backupxe.blob.core.windows.net/trials/sql01", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task History_server_without_history_database_is_a_usage_error()
    {
        await using var tune = TuneRun.Start();

        var run = await tune.TuneAsync("--history-server", tune.Server.Server);

        Assert.Equal(1, run.ExitCode);
        Assert.Empty(tune.Tds.Order);
        Assert.Contains("--history-server and --history-database go together", run.Error, StringComparison.Ordinal);
    }

    /// <summary>Restore trials into scratch databases: about as long as a whole tune.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class RestoreTrials
    {
        [Fact]
        public async Task Restore_trials_restore_into_new_scratch_databases_drop_each_report_zeroing_and_never_reuse_a_taken_name()
        {
            await using var tune = TuneRun.Start(arrange: tds =>
            {
                tds.TakenScratchTrial = 4;
                tds.Sql.InstantFileInitialization = "N";
            });
            var tds = tune.Tds;

            var run = await tune.TuneAsync("--window", "5s", "--time-budget", "3m",
                "--restore", "--restore-from", @"Z:\Nightly\Sales'full.bak", "--scratch-dir", @"X:\Scratch");

            // Three trials ran (defaults twice, to learn the noise, then 4 MB transfers, then 32 buffers, each gaining far
            // more than the noise); the fourth's name was taken, so it never ran.
            Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
            Assert.True(tds.Restores.Count == 4, run.Output + string.Join("\n", tds.Restores));
            var scratch = tds.Restores.Select(sql => sql[("RESTORE DATABASE [".Length)..sql.IndexOf(']', StringComparison.Ordinal)]).ToList();
            Assert.All(scratch, name => Assert.Matches("^backupxe_tune_[0-9a-f]{8}_r0[1-3](_2)?$", name));
            Assert.EndsWith("_r01_2", scratch[1], StringComparison.Ordinal);
            Assert.Equal(scratch, tds.Dropped);
            Assert.Equal(["Sales"], tds.Databases);
            foreach (var sql in tds.Restores)
            {
                Assert.Contains(@"FROM DISK = N'Z:\Nightly\Sales''full.bak'", sql, StringComparison.Ordinal);
                Assert.Contains(@"MOVE N'Sales_log' TO N'X:\Scratch\backupxe_tune_", sql, StringComparison.Ordinal);
                var fragment = new Microsoft.SqlServer.TransactSql.ScriptDom.TSql150Parser(true).Parse(new StringReader(sql), out var errors);
                Assert.Empty(errors);
                var restore = Assert.IsType<Microsoft.SqlServer.TransactSql.ScriptDom.RestoreStatement>(Assert.Single(Assert.Single(((Microsoft.SqlServer.TransactSql.ScriptDom.TSqlScript)fragment).Batches).Statements));
                Assert.DoesNotContain(restore.Options, o => o.OptionKind == Microsoft.SqlServer.TransactSql.ScriptDom.RestoreOptionKind.Replace);
            }

            Assert.DoesNotContain("MAXTRANSFERSIZE", tds.Restores[1], StringComparison.Ordinal);
            Assert.Contains("MAXTRANSFERSIZE = 4194304", tds.Restores[2], StringComparison.Ordinal);
            Assert.Contains("BUFFERCOUNT = 32,\n     MAXTRANSFERSIZE = 4194304", tds.Restores[3], StringComparison.Ordinal);
            Assert.Contains("Restore trials:", run.Output, StringComparison.Ordinal);
            Assert.Contains("(mean of 2 runs)", run.Output, StringComparison.Ordinal);

            // Below its ceiling the double's restore waits as buffers too few do (many short BACKUPBUFFER waits): the limit says so.
            Assert.Contains("limited by buffers", run.Output, StringComparison.Ordinal);
            Assert.Contains("zeroing 0.8 s", run.Output, StringComparison.Ordinal);
            Assert.Contains("Instant File Initialization: disabled", run.Output, StringComparison.Ordinal);
            Assert.Contains("Best restore: trial 3, BUFFERCOUNT 32, MAXTRANSFERSIZE 4096 KB", run.Output, StringComparison.Ordinal);
            Assert.Contains("_r04 exists: a restore trial never restores over a database.", run.Output, StringComparison.Ordinal);
        }
    }

    /// <summary>The central table taking the restore trials' columns, with restore trials.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class CentralTableMigration
    {
        [Fact]
        public async Task With_restore_trials_a_central_table_from_before_them_gets_its_columns_after_alter_is_checked_and_keeps_the_restore_trials()
        {
            await using var tune = TuneRun.Start(arrange: tds =>
            {
                tds.TuneTableExists = true;
                tds.TuneTableRestoreColumns = false;
            });
            var tds = tune.Tds;

            var run = await tune.TuneAsync("--window", "5s", "--time-budget", "2m",
                "--restore", "--restore-from", @"Z:\Sales.bak", "--scratch-dir", @"X:\Scratch",
                "--history-server", tune.Server.Server, "--history-database", "BackupXe History");

            Assert.True(run.ExitCode == 0, run.Error + run.Output);
            Assert.Equal(["ready", "alter"], tds.Order.Take(2));
            Assert.Equal("insert", tds.Order[^1]);
            var ddl = Assert.Single(tds.TuneTableDdl);
            Assert.Contains("ALTER TABLE [dbo].[tune_runs] ADD [restore_best_mbps] float NULL;", ddl, StringComparison.Ordinal);
            new Microsoft.SqlServer.TransactSql.ScriptDom.TSql150Parser(true).Parse(new StringReader(ddl), out var errors);
            Assert.Empty(errors);
            var row = Assert.Single(tds.TuneRows);
            Assert.IsType<double>(row["@restoreBest"]);
            Assert.IsType<double>(row["@restoreDefaults"]);
            using var json = System.Text.Json.JsonDocument.Parse((string)row["@json"]!);
            var trials = json.RootElement.GetProperty("restore").GetProperty("trials");
            Assert.Equal(tds.Restores.Count, trials.EnumerateArray().Sum(t => t.GetProperty("runs").GetInt32()));
            Assert.Contains("stored in the central history", run.Error, StringComparison.Ordinal);
        }
    }

    /// <summary>The central table created or refused around a whole tune.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class CentralTable
    {
        [Fact]
        public async Task The_central_tune_table_is_created_only_after_its_permissions_are_read_before_any_trial_and_takes_the_result()
        {
            await using var tune = TuneRun.Start();
            var tds = tune.Tds;

            var run = await tune.TuneAsync("--window", "5s", "--time-budget", "1m",
                "--history-server", tune.Server.Server, "--history-database", "BackupXe History", "--instance", "PROD]01");

            Assert.True(run.ExitCode == 0, run.Error + run.Output);
            Assert.Equal(["ready", "create"], tds.Order.Take(2));
            Assert.Equal("insert", tds.Order[^1]);
            Assert.Contains("backup", tds.Order);
            var ddl = Assert.Single(tds.TuneTableDdl);
            var fragment = new Microsoft.SqlServer.TransactSql.ScriptDom.TSql150Parser(true).Parse(new StringReader(ddl), out var errors);
            Assert.Empty(errors);
            Assert.NotNull(fragment);
            var row = Assert.Single(tds.TuneRows);
            Assert.Equal("PROD]01", row["@instance"]);
            Assert.Equal("Sales", row["@database"]);
            Assert.Contains("Sales", (string)row["@json"]!, StringComparison.Ordinal);
            Assert.Contains("stored in the central history", run.Error, StringComparison.Ordinal);
            Assert.DoesNotContain(TdsClient.Password, run.Output + run.Error, StringComparison.Ordinal);
        }

        [Theory]
        [InlineData(true)]
        [InlineData(false)]
        public async Task A_central_table_from_before_the_restore_columns_without_alter_refuses_a_restore_tune_and_takes_a_backup_tune_as_it_is(bool restore)
        {
            await using var tune = TuneRun.Start(arrange: tds =>
            {
                tds.TuneTableExists = true;
                tds.TuneTableRestoreColumns = false;
                tds.RepositoryGrants.Remove("ALTER TABLE");
            });
            var tds = tune.Tds;
            string[] restoreArguments = restore ? ["--restore", "--restore-from", @"Z:\Sales.bak", "--scratch-dir", @"X:\Scratch"] : [];

            var run = await tune.TuneAsync(["--window", "5s", "--time-budget", "1m",
                .. restoreArguments, "--history-server", tune.Server.Server, "--history-database", "BackupXe History"]);

            Assert.Empty(tds.TuneTableDdl);
            Assert.DoesNotContain("alter", tds.Order);
            if (restore)
            {
                Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
                Assert.Equal(["ready"], tds.Order);
                Assert.Empty(tds.Backups);
                Assert.Contains("predates the restore trials' columns (migration 3)", run.Error, StringComparison.Ordinal);
                Assert.Contains("GRANT ALTER ON [dbo].[tune_runs] TO [tuner]]x];", run.Error, StringComparison.Ordinal);
            }
            else
            {
                Assert.True(run.ExitCode == 0, run.Error + run.Output);
                var row = Assert.Single(tds.TuneRows);
                Assert.False(row.ContainsKey("@restoreBest"));
            }
        }
    }

    /// <summary>Trials to URL striped over blobs.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class TrialsToUrl
    {
        [Fact]
        public async Task Trials_to_url_run_through_the_driver_striped_over_enough_blobs_and_every_blob_is_listed_not_deleted()
        {
            await using var tune = TuneRun.Start(Shapes.UrlBlockBlob(), Shapes.BlobContainers, tds =>
            {
                tds.Credentials.Add(("https://backupxe.blob.core.windows.net/trials", "SHARED ACCESS SIGNATURE"));
                tds.Credentials.Add(("https://backupxe.blob.core.windows.net/trials2", "SHARED ACCESS SIGNATURE"));
            });
            var tds = tune.Tds;

            var run = await tune.TuneAsync("--to", Shapes.BlobContainers[0], "--to", Shapes.BlobContainers[1], "--window", "5s", "--time-budget", "2m");

            Assert.True(run.ExitCode == 0, run.Error + run.Output);
            var toUrl = tds.Backups.Where(sql => !sql.Contains("N'NUL'", StringComparison.Ordinal)).ToList();
            Assert.NotEmpty(toUrl);
            Assert.All(toUrl, sql =>
            {
                Assert.Contains("TO URL = N'https://backupxe.blob.core.windows.net/trials", sql, StringComparison.Ordinal);
                Assert.True(System.Text.RegularExpressions.Regex.Count(sql, "URL = N'") >= 7, sql);
                Assert.DoesNotContain("NOINIT", sql, StringComparison.Ordinal);
            });
            Assert.Contains("Trial blobs left in storage: " + tds.FilesWritten.Count, run.Output, StringComparison.Ordinal);
            Assert.All(tds.FilesWritten, blob => Assert.Contains(blob, run.Output, StringComparison.Ordinal));
            Assert.DoesNotContain("Remove-Item", run.Output, StringComparison.Ordinal);
        }
    }

    /// <summary>Sparse progress on a large database, and Ctrl-C with JSON output.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class SparseProgressAndJson
    {
        [Fact]
        public async Task On_1_TB_with_sparse_progress_the_json_takes_rates_from_percent_complete_and_carries_the_kept_files()
        {
            // 1% of 1 TB is 10 GB: a 5 s window holds no percent line, so percent_complete, read every second, gives the rate.
            await using var tune = TuneRun.Start("s08-level-off", model => model with { DatabaseBytes = 1L << 40 }, tds => tds.SparseProgress = true);
            var tds = tune.Tds;

            var run = await tune.TuneAsync("--window", "5s", "--time-budget", "1m", "--format", "json");

            Assert.True(run.ExitCode is 0 or TuneCommand.Refused, run.Error);
            using var json = System.Text.Json.JsonDocument.Parse(run.Output);
            var root = json.RootElement;
            var sources = root.GetProperty("trials").EnumerateArray().SelectMany(t => t.GetProperty("runs").EnumerateArray()).Select(r => r.GetProperty("source").GetString()).ToList();
            Assert.Contains("percent-complete", sources);
            Assert.True(tds.PercentQueries > 0);
            var kept = root.GetProperty("keptFiles").EnumerateArray().Select(f => f.GetProperty("path").GetString()).ToList();
            // Failed once in a full run under load (exit and JSON not recorded then): the whole output says which trial kept nothing.
            Assert.True(kept.Count > 0, $"exit {run.ExitCode}, {tds.FilesWritten.Count} files written: {run.Output}{run.Error}");
            Assert.Equal(tds.FilesWritten.Distinct().Order(StringComparer.Ordinal), kept.Order(StringComparer.Ordinal));
            Assert.True(root.GetProperty("keptBytesAtMost").GetInt64() <= root.GetProperty("plan").GetProperty("diskSpaceAtMost").GetInt64());
            Assert.All(tds.Backups, sql => Assert.Contains("NAME = N'backupxe-tune-", sql, StringComparison.Ordinal));
        }

        [Fact]
        public async Task Ctrl_c_with_json_output_still_writes_one_json_object_with_the_kept_files()
        {
            await using var tune = TuneRun.Start("buffer-count-table");
            var tds = tune.Tds;
            using var cancel = new CancellationTokenSource();
            _ = tune.CtrlCOneSecondIntoTheFirstTrialToAFile(cancel);

            var run = await tune.TuneAsync(cancel.Token, "--window", "5s", "--time-budget", "2m", "--format", "json");

            Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
            using var json = System.Text.Json.JsonDocument.Parse(run.Output[run.Output.IndexOf('{', StringComparison.Ordinal)..]);
            var file = Assert.Single(tds.FilesWritten);
            Assert.Equal(file, Assert.Single(json.RootElement.GetProperty("keptFiles").EnumerateArray()).GetProperty("path").GetString());
            Assert.Contains("Remove-Item -LiteralPath", json.RootElement.GetProperty("keptFilesCommand").GetString(), StringComparison.Ordinal);
        }
    }

    /// <summary>Ctrl-C during a trial, a refused directory and a stated free space.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class StoppedOrOverridden
    {
        [Fact]
        public async Task Ctrl_c_stops_the_running_trial_confirms_it_ended_and_lists_its_files()
        {
            await using var tune = TuneRun.Start("buffer-count-table");
            var tds = tune.Tds;
            using var cancel = new CancellationTokenSource();
            var ctrlC = tune.CtrlCOneSecondIntoTheFirstTrialToAFile(cancel);

            var run = await tune.TuneAsync(cancel.Token, "--window", "5s", "--time-budget", "2m");

            Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
            // The trial stopped at the Ctrl-C, not at its window's end 4 s later: its stop was confirmed at once.
            Assert.True(tds.StopCheckTimes[^1] - await ctrlC < TimeSpan.FromSeconds(1), $"Ctrl-C at {await ctrlC:HH:mm:ss.fff}, stop confirmed at {tds.StopCheckTimes[^1]:HH:mm:ss.fff}");
            Assert.Contains("tune cancelled: the running trial backup was stopped", run.Error, StringComparison.Ordinal);
            var file = Assert.Single(tds.FilesWritten);
            Assert.Contains("Trial files kept on the server: 1,", run.Output, StringComparison.Ordinal);
            Assert.Contains($"Remove-Item -LiteralPath '{file}'", run.Output, StringComparison.Ordinal);
            Assert.True(tds.StopChecks >= tds.Backups.Count, "each cancelled trial was confirmed gone from sys.dm_exec_requests");
        }

        [Fact]
        public async Task A_directory_on_a_volume_without_database_files_is_refused_with_the_reason()
        {
            await using var tune = TuneRun.Start(arrange: tds => tds.Volumes.RemoveAll(v => v.MountPoint == @"X:\"));

            var run = await tune.TuneAsync("--window", "5s");

            Assert.True(run.ExitCode == TuneCommand.Refused, run.Error + run.Output);
            Assert.All(tune.Tds.Backups, sql => Assert.Contains("TO DISK = N'NUL'", sql, StringComparison.Ordinal));
            Assert.Contains("no database file of this instance is on its volume", run.Output, StringComparison.Ordinal);
        }

        [Fact]
        public async Task A_stated_free_space_overrides_the_refusal_says_so_and_the_result_goes_to_the_history()
        {
            await using var tune = TuneRun.Start(arrange: tds => tds.Volumes.RemoveAll(v => v.MountPoint == @"X:\"));
            using var folder = new TempDirectory();
            var history = folder.File("history.db");

            var run = await tune.TuneAsync("--window", "5s", "--time-budget", "1m",
                "--free-space-mb", tune.Directories[0] + "=104857600", "--history", history, "--instance", "SQL01");

            Assert.True(run.ExitCode == 0, run.Error + run.Output);
            Assert.NotEmpty(tune.Tds.FilesWritten);
            Assert.Contains($"Free-space check overridden: {tune.Directories[0]}: the server cannot report its free space (no database file of this instance is on its volume", run.Output, StringComparison.Ordinal);
            Assert.Contains("is stored in the history", run.Error, StringComparison.Ordinal);

            var listed = await CliRun.RunAsync("history", "tunes", "--path", history, "--database", "sales");
            Assert.True(listed.ExitCode == 0, listed.Error);
            Assert.Contains("Tune runs of [Sales] on SQL01", listed.Output, StringComparison.Ordinal);
            Assert.Contains(" UTC: best ", listed.Output, StringComparison.Ordinal);
        }
    }

    /// <summary>
    /// A shape's double, changed by the test before it starts, and <c>tune --execute</c> run against it on a fake clock
    /// (the one arrange block every test here shares). The clock moves to its next timer only once every part of the
    /// tune that waits on it has armed its timer (<see cref="Settled"/>): it never outruns a round trip to the double.
    /// </summary>
    private sealed class TuneRun : IAsyncDisposable
    {
        private TuneRun(FakeClock clock, TuneOverTds tds, IReadOnlyList<string> directories)
        {
            Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
            Clock = clock;
            Tds = tds;
            Directories = directories;
            Server = TdsServerDouble.Start(tds.Sql.Script);
        }

        public FakeClock Clock { get; }

        public TuneOverTds Tds { get; }

        public IReadOnlyList<string> Directories { get; }

        public TdsServerDouble Server { get; }

        public static TuneRun Start(string shape = "read-bound", Func<ServerModel, ServerModel>? model = null, Action<TuneOverTds>? arrange = null)
        {
            var (shaped, directories) = Shapes.Get(shape);
            return Start(model?.Invoke(shaped) ?? shaped, directories, arrange);
        }

        public static TuneRun Start(ServerModel model, IReadOnlyList<string> directories, Action<TuneOverTds>? arrange = null)
        {
            var clock = new FakeClock();
            var tds = new TuneOverTds(model, directories) { Time = clock };
            arrange?.Invoke(tds);
            return new TuneRun(clock, tds, directories);
        }

        /// <summary>The tune, to the shape's first directory unless <paramref name="extra"/> names its own <c>--to</c>.</summary>
        public Task<CliRun> TuneAsync(params string[] extra) => TuneAsync(CancellationToken.None, extra);

        public async Task<CliRun> TuneAsync(CancellationToken cancellationToken, params string[] extra)
        {
            var output = new StringWriter();
            var error = new StringWriter();
            var console = CliRun.Captured(output, error) with { Time = Clock };
            var root = new RootCommand { TuneCommand.Create(console) };
            string[] to = extra.Contains("--to") ? [] : ["--to", Directories[0]];
            string[] args = ["tune", .. TdsClient.CliArguments(Server), "--database", "Sales", "--execute", .. to, .. extra];
            var running = root.Parse(args).InvokeAsync(BackupXe.Cli.Program.Invocation(console), cancellationToken);
            var exit = await ClockDriver.UntilDoneAsync(Clock, running, Settled, TimeSpan.FromHours(6), TimeSpan.FromMinutes(2), State);
            return new CliRun(exit, output.ToString(), error.ToString());
        }

        /// <summary>Ctrl-C one second (of the fake clock) into the first trial to a file; the task gives the server's time of it.</summary>
        public Task<DateTime> CtrlCOneSecondIntoTheFirstTrialToAFile(CancellationTokenSource cancel)
        {
            var pressed = new TaskCompletionSource<DateTime>(TaskCreationOptions.RunContinuationsAsynchronously);
            var armed = 0;
            Tds.Sql.Script.On(r => r.Text.StartsWith("BACKUP DATABASE", StringComparison.Ordinal), request =>
            {
                var response = Tds.Answer(request);
                if (Tds.FilesWritten.Count > 0 && Interlocked.Exchange(ref armed, 1) == 0)
                {
                    _ = Task.Delay(TimeSpan.FromSeconds(1), Clock).ContinueWith(_ =>
                    {
                        pressed.TrySetResult(Clock.GetUtcNow().UtcDateTime);
                        cancel.Cancel();
                    }, TaskScheduler.Default);
                }

                return response;
            });
            return pressed.Task;
        }

        public ValueTask DisposeAsync() => Server.DisposeAsync();

        /// <summary>
        /// Every part of the tune that waits on the clock has armed its timer: the capture's tail, once a trial has begun;
        /// while a trial's BACKUP or RESTORE runs (stalled at the double), its window and, a BACKUP, its percent_complete
        /// sampling once it has read once; after a trial, the capture looking for its operation, whose poll is the next
        /// timer. Anything short of that is a round trip to the double, which the clock must not outrun (a trial on its
        /// way to the double has armed its window already: that alone is not a reason to move).
        /// </summary>
        private bool Settled()
        {
            var tail = Tds.Backups.Count + Tds.Restores.Count > 0 ? 1 : 0;
            if (Server.Stalled > 0)
            {
                return Tds.BackupRunning
                    ? Tds.PercentQueriesOfThisTrial > 0 && Clock.PendingTimers >= tail + 2
                    : Clock.PendingTimers >= tail + 1;
            }

            return Clock.PendingTimers >= tail + 1 && Clock.UntilNextTimer <= TrialOperationCapture.Poll;
        }

        private string State() => $"{Clock.PendingTimers} timers, {Server.Stalled} stalled, {Tds.Events.Reads} event file reads, {Tds.PercentQueriesOfThisTrial} percent reads of this trial, last request: {Server.Requests.LastOrDefault()?.Text.Split('\n')[0]}";
    }
}
