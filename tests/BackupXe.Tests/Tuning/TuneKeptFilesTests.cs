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

    [Fact]
    public async Task Every_trial_file_is_kept_and_listed_with_at_most_the_bytes_its_trial_read()
    {
        var (server, request) = Setup();

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.DoesNotContain(server.Calls, c => c.StartsWith("delete", StringComparison.Ordinal));
        var written = server.Statements.Where(s => !s.ToNul).SelectMany(s => s.Devices).ToList();
        Assert.Equal(written, result.KeptFiles.Select(f => f.Path));
        Assert.Equal(server.Files.Order(StringComparer.Ordinal), result.KeptFiles.Select(f => f.Path).Order(StringComparer.Ordinal));
        Assert.All(result.KeptFiles, f => Assert.True(f.BytesAtMost is > 0 && f.BytesAtMost <= server.Model.DatabaseBytes));
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
        Assert.Equal(server.Statements.Where(s => !s.ToNul).SelectMany(s => s.Devices), tuner.KeptFiles.Select(f => f.Path));
        Assert.All(server.Statements[^1].Devices, path => Assert.Contains(tuner.KeptFiles, f => f.Path == path && f.BytesAtMost is null));
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
        Assert.All(server.Statements.Where(s => s.ToNul), s => Assert.DoesNotContain("MEDIANAME", s.Sql, StringComparison.Ordinal));
        Assert.Equal(server.Statements.Count(s => !s.ToNul), server.Statements.Where(s => !s.ToNul).Select(s => s.MediaName).Distinct().Count());
    }
}
