using BackupXe.Core.Tuning;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>Each safety rule of a tune, with a test that fails when the rule is broken.</summary>
public class TuneSafetyTests
{
    private const long MB = ServerModel.MB;

    private static (SimulatedServer Server, TuneRequest Request) Setup(string shape = "buffer-count-table")
    {
        var (model, directories) = Shapes.Get(shape);
        return (new SimulatedServer(model, directories), TunerTests.Request(directories));
    }

    [Fact]
    public async Task The_dry_run_runs_nothing_and_plans_trials_time_bytes_and_memory()
    {
        var (server, request) = Setup();

        var plan = await Tuner.PlanAsync(server, request, CancellationToken.None);

        Assert.Empty(server.Statements);
        Assert.DoesNotContain(server.Calls, c => c.StartsWith("run", StringComparison.Ordinal) || c.StartsWith("delete", StringComparison.Ordinal));
        Assert.Equal(4, plan.FixedTrials.Count);
        Assert.True(plan.GuidedTrialsAtMost > 0);
        Assert.True(plan.ExpectedSecondsAtMost <= request.TimeBudget.TotalSeconds);
        Assert.Equal(server.Model.DatabaseBytes, plan.DiskSpaceAtMost);
        Assert.True(plan.BytesReadAtMost >= plan.TrialsAtMost * server.Model.DatabaseBytes);
        Assert.Equal(request.MemoryBudgetBytes, plan.MemoryBudgetBytes);
        Assert.Contains(plan.Notes, n => n.Contains("msdb backup history", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Every_trial_is_a_copy_only_backup_as_the_parser_reads_it()
    {
        var (server, request) = Setup("compression-cpu");

        await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.NotEmpty(server.Statements);
        foreach (var statement in server.Statements)
        {
            var fragment = new TSql150Parser(true).Parse(new StringReader(statement.Sql), out var errors);
            Assert.Empty(errors);
            var backup = Assert.IsType<BackupDatabaseStatement>(Assert.Single(Assert.Single(((TSqlScript)fragment).Batches).Statements));
            Assert.Contains(backup.Options, o => o.OptionKind == BackupOptionKind.CopyOnly);
        }
    }

    [Fact]
    public async Task Every_statement_shape_of_a_tune_that_keeps_its_files_parses_as_a_copy_only_backup_with_its_media_and_set_names()
    {
        // Kept files: first runs (NOINIT), reruns over the tune's own media set (INIT), NUL ceilings; each with NAME and DESCRIPTION.
        var (model, directories) = Shapes.Get("striping");
        var server = new SimulatedServer(model, directories) { DeletesFiles = false };

        await new Tuner(server, TunerTests.Request(directories)).RunAsync(CancellationToken.None);

        Assert.Contains(server.Statements, s => s.Overwrite);
        Assert.Contains(server.Statements, s => !s.ToNul && !s.Overwrite);
        foreach (var statement in server.Statements)
        {
            var fragment = new TSql150Parser(true).Parse(new StringReader(statement.Sql), out var errors);
            Assert.Empty(errors);
            var backup = Assert.IsType<BackupDatabaseStatement>(Assert.Single(Assert.Single(((TSqlScript)fragment).Batches).Statements));
            Assert.Contains(backup.Options, o => o.OptionKind == BackupOptionKind.CopyOnly);
            Assert.Contains(backup.Options, o => o.OptionKind == BackupOptionKind.Name);
            Assert.Contains(backup.Options, o => o.OptionKind == BackupOptionKind.Description);
            Assert.Equal(!statement.ToNul, backup.Options.Any(o => o.OptionKind == BackupOptionKind.MediaName));
            Assert.Equal(statement.Overwrite, backup.Options.Any(o => o.OptionKind == BackupOptionKind.Init));
            Assert.Equal(!statement.ToNul && !statement.Overwrite, backup.Options.Any(o => o.OptionKind == BackupOptionKind.NoInit));
        }
    }

    [Fact]
    public async Task The_read_ceilings_come_first_to_nul_without_then_with_compression()
    {
        var (server, request) = Setup();

        await new Tuner(server, request).RunAsync(CancellationToken.None);

        var firstFile = server.Statements.FindIndex(s => !s.ToNul);
        var ceilings = server.Statements.Take(firstFile).ToList();
        Assert.True(ceilings.Count >= 2);
        Assert.All(ceilings, s => Assert.Equal("NUL", Assert.Single(s.Devices)));
        Assert.False(ceilings[0].Options.Compression);
        Assert.Contains(ceilings, s => s.Options.Compression == true);
        Assert.Contains("TO DISK = N'NUL'", ceilings[0].Sql, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Trial_files_are_new_uniquely_named_checked_first_and_deleted_after_each_trial()
    {
        var (server, request) = Setup("striping");

        await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.Empty(server.Files);
        var paths = server.Statements.Where(s => !s.ToNul).SelectMany(s => s.Devices).ToList();
        Assert.Equal(paths.Count, paths.Distinct(StringComparer.OrdinalIgnoreCase).Count());
        foreach (var statement in server.Statements.Where(s => !s.ToNul))
        {
            var run = server.Calls.IndexOf("run " + statement.Sql);
            var nextRun = server.Calls.FindIndex(run + 1, c => c.StartsWith("run ", StringComparison.Ordinal));
            foreach (var path in statement.Devices)
            {
                Assert.InRange(server.Calls.LastIndexOf("check " + path, run), 0, run);
                var deleted = server.Calls.IndexOf("delete " + path, run);
                Assert.True(deleted > run && (nextRun < 0 || deleted < nextRun), $"{path} was not deleted before the next trial");
            }
        }
    }

    [Fact]
    public async Task An_existing_file_is_never_written_over_nor_deleted()
    {
        var (server, request) = Setup();
        var taken = TrialStatement.ToFiles(request.Database, request.Directories, TrialOptions.Defaults, request.RunId, trial: 4, run: 1).Devices[0];
        server.Files.Add(taken);

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Contains("already exists", result.StopReason, StringComparison.Ordinal);
        Assert.Contains(taken, server.Files);
        Assert.DoesNotContain(server.Calls, c => c == "delete " + taken);
        Assert.All(server.Statements, s => Assert.DoesNotContain(taken, s.Devices));
    }

    [Fact]
    public async Task Cancellation_stops_the_running_backup_first_then_deletes_its_files()
    {
        var (server, request) = Setup("striping");
        using var cancel = new CancellationTokenSource();
        server.OnTrialStarted = number =>
        {
            if (number == 6)
            {
                cancel.Cancel();
            }
        };

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => new Tuner(server, request).RunAsync(cancel.Token));

        Assert.Equal(6, server.Statements.Count);
        Assert.Empty(server.Files);
        var stop = server.Calls.LastIndexOf("stop");
        Assert.All(server.Statements[^1].Devices, path => Assert.True(server.Calls.IndexOf("delete " + path) > stop));
    }

    [Theory]
    [InlineData(1024L)]
    [InlineData(null)]
    public async Task Free_space_is_checked_before_each_trial_and_a_short_or_unknown_one_refuses(long? freeMb)
    {
        var (server, request) = Setup();
        server.FreeBytes[request.Directories[0]] = freeMb * MB;

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Contains(request.Directories[0], result.StopReason, StringComparison.Ordinal);
        Assert.All(server.Statements, s => Assert.True(s.ToNul));
    }

    [Fact]
    public async Task Refuses_while_another_backup_or_restore_of_the_database_runs()
    {
        var (server, request) = Setup();
        server.OtherBackupRunning = true;

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Contains("Another backup or restore of Sales is running", result.StopReason, StringComparison.Ordinal);
        Assert.Empty(server.Statements);
    }

    [Fact]
    public async Task Identifiers_and_paths_are_quoted()
    {
        var (model, _) = Shapes.Get("read-bound");
        string[] directories = [@"X:\O'Brien's ]backups"];
        var server = new SimulatedServer(model with { DirectoryWriteMBps = new Dictionary<string, double> { [directories[0]] = 2000 } }, directories);
        var request = TunerTests.Request(directories) with { Database = "Sales]'DB" };

        await new Tuner(server, request).RunAsync(CancellationToken.None);

        var file = server.Statements.First(s => !s.ToNul);
        Assert.StartsWith("BACKUP DATABASE [Sales]]'DB]", file.Sql, StringComparison.Ordinal);
        Assert.Contains(@"TO DISK = N'X:\O''Brien''s ]backups\backupxe-tune-", file.Sql, StringComparison.Ordinal);
        var fragment = new TSql150Parser(true).Parse(new StringReader(file.Sql), out var errors);
        Assert.Empty(errors);
        var backup = (BackupDatabaseStatement)((TSqlScript)fragment).Batches[0].Statements[0];
        Assert.Equal("Sales]'DB", backup.DatabaseName.Identifier.Value);
    }
}
