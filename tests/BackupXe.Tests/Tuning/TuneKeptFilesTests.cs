using BackupXe.Core.Tuning;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// A host that cannot delete files (a live server: no documented, least-privilege T-SQL does): the tuner keeps every
/// trial file and lists it, after each trial and on cancellation; a host that is not ready runs nothing.
/// </summary>
public class TuneKeptFilesTests
{
    private static (SimulatedServer Server, TuneRequest Request) Setup(string shape = "striping")
    {
        var (model, directories) = Shapes.Get(shape);
        return (new SimulatedServer(model, directories) { DeletesFiles = false }, TunerTests.Request(directories));
    }

    [Theory]
    [InlineData("striping")]
    [InlineData("buffer-count-table")]
    [InlineData("compression-cpu")]
    public async Task Every_trial_file_is_kept_and_listed_once_and_what_they_hold_stays_within_the_stated_bound(string shape)
    {
        var (server, request) = Setup(shape);

        var plan = await Tuner.PlanAsync(server, request, CancellationToken.None);
        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.DoesNotContain(server.Calls, c => c.StartsWith("delete", StringComparison.Ordinal));
        var written = server.Statements.Where(s => !s.ToNul).SelectMany(s => s.Devices).Distinct().ToList();
        Assert.Equal(written, result.KeptFiles.Select(f => f.Path));
        Assert.Equal(server.Files.Order(StringComparer.Ordinal), result.KeptFiles.Select(f => f.Path).Order(StringComparer.Ordinal));

        // Each file, and each media set, holds at most one full backup; the bound is exact, as stated in the plan and the result.
        var total = TrialFileCleanup.TotalBytesAtMost(result.KeptFiles)!.Value;
        Assert.Equal(result.KeptBytesAtMost, total);
        Assert.True(total <= plan.DiskSpaceAtMost, $"{total} kept, plan said at most {plan.DiskSpaceAtMost}");
        Assert.True(plan.DiskSpaceAtMost <= TuneRequest.DefaultTrialSpaceMultiple * Tuner.FullBackupBytesAtMost(await server.DescribeAsync("Sales", CancellationToken.None)));
        Assert.True(server.FileBytes.Values.Sum() <= total, $"{server.FileBytes.Values.Sum()} bytes on disk, bound {total}");
        foreach (var set in result.KeptFiles.GroupBy(f => f.MediaName))
        {
            Assert.True(set.Sum(f => server.FileBytes[f.Path]) <= set.First().BytesAtMost, $"media set {set.Key}");
        }

        // Later runs of a shape overwrite its media set, under its own media name only.
        Assert.True(server.Statements.Count(s => !s.ToNul) > result.KeptFiles.Select(f => f.MediaName).Distinct().Count());
        Assert.Contains(server.Statements, s => s.Overwrite && s.Sql.Contains($"INIT, NOSKIP, MEDIANAME = N'{s.MediaName}'", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_smaller_max_trial_space_opens_fewer_media_sets_and_the_tune_stays_within_it()
    {
        var (server, request) = Setup("striping");
        var facts = await server.DescribeAsync("Sales", CancellationToken.None);
        var two = 2 * Tuner.FullBackupBytesAtMost(facts);
        request = request with { MaxTrialSpaceBytes = two + 1 };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.False(result.Refused, result.StopReason);
        Assert.True(result.KeptFiles.Select(f => f.MediaName).Distinct().Count() <= 2);
        Assert.True(result.KeptBytesAtMost <= two + 1);
        Assert.True(server.FileBytes.Values.Sum() <= two);
    }

    [Fact]
    public async Task A_max_trial_space_below_one_full_backup_runs_nothing_and_says_why()
    {
        var (server, request) = Setup();
        request = request with { MaxTrialSpaceBytes = server.Model.DatabaseBytes / 2 };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Empty(server.Statements);
        Assert.Contains("less than one full backup", result.StopReason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task On_cancellation_the_running_trials_files_are_kept_and_listed_after_its_backup_stopped()
    {
        var (server, request) = Setup();
        using var cancel = new CancellationTokenSource();
        server.OnTrialStarted = number =>
        {
            if (number == 6)
            {
                cancel.Cancel();
            }
        };
        var tuner = new Tuner(server, request);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => tuner.RunAsync(cancel.Token));

        Assert.Equal("stop", server.Calls[^1]);
        Assert.Equal(server.Statements.Where(s => !s.ToNul).SelectMany(s => s.Devices).Distinct(), tuner.KeptFiles.Select(f => f.Path));
        Assert.All(server.Statements[^1].Devices, path => Assert.Contains(tuner.KeptFiles, f => f.Path == path && f.BytesAtMost is > 0));
    }

    [Fact]
    public async Task A_host_that_is_not_ready_runs_nothing_and_says_why()
    {
        var (server, request) = Setup();
        server.NotReady.Add("The login lacks BACKUP DATABASE on [Sales].");

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Empty(server.Statements);
        Assert.Equal("Nothing ran: The login lacks BACKUP DATABASE on [Sales].", result.StopReason);
    }

    [Fact]
    public async Task A_trial_to_files_names_its_own_media_set_so_the_server_refuses_an_existing_file()
    {
        var (server, request) = Setup();

        await new Tuner(server, request).RunAsync(CancellationToken.None);

        var trial = server.Statements.First(s => !s.ToNul);
        Assert.Contains($"NOINIT, NOSKIP, MEDIANAME = N'{trial.MediaName}'", trial.Sql, StringComparison.Ordinal);
        Assert.StartsWith($"backupxe-tune-{request.RunId}-", trial.MediaName, StringComparison.Ordinal);
        Assert.DoesNotContain("MEDIANAME", trial.RecommendedSql(trial.Devices), StringComparison.Ordinal);
        Assert.DoesNotContain("NAME =", trial.RecommendedSql(trial.Devices), StringComparison.Ordinal);
        Assert.All(server.Statements.Where(s => s.ToNul), s => Assert.DoesNotContain("MEDIANAME", s.Sql, StringComparison.Ordinal));

        // Each media set's first run makes new files; a later run overwrites its own files only, by its media name.
        foreach (var set in server.Statements.Where(s => !s.ToNul).GroupBy(s => s.MediaName))
        {
            Assert.False(set.First().Overwrite);
            Assert.All(set.Skip(1), s => Assert.Contains($"INIT, NOSKIP, MEDIANAME = N'{set.Key}'", s.Sql, StringComparison.Ordinal));
            Assert.Single(set.Select(s => string.Join("|", s.Devices)).Distinct());
        }

        // Every trial, the read ceilings to NUL included, names its backup set so that msdb's rows are told apart.
        Assert.All(server.Statements, s => Assert.Contains($"NAME = N'backupxe-tune-{request.RunId}-", s.Sql, StringComparison.Ordinal));
        Assert.Equal(server.Statements.Count, server.Statements.Select(s => s.BackupSetName).Distinct().Count());
    }
}
