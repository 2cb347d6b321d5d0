using BackupXe.Core.Diagnosis;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// Two tune trials on a real SQL Server, only when BACKUPXE_TEST_SQL is set (skipped, visibly, otherwise): COPY_ONLY
/// backups to new files in BACKUPXE_TEST_BACKUP_DIR (a directory on the server; skipped without it; never NUL, which
/// Microsoft does not document as a target), at the defaults and at BUFFERCOUNT 16 x 4 MB, each stopped at a 5 s window
/// or finished, captured by a session named BackupXe_TuneTest that the test creates and drops. Of database
/// BACKUPXE_TEST_DATABASE (model when unset). The trial files are kept, as tune keeps them: the test prints their paths.
/// </summary>
public class TuneIntegrationTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Two_trials_are_captured_and_stop_at_their_window_on_a_real_server()
    {
        var factory = SqlServerIntegrationTests.Factory();
        var directory = Environment.GetEnvironmentVariable("BACKUPXE_TEST_BACKUP_DIR");
        if (string.IsNullOrWhiteSpace(directory))
        {
            Skipped.Because("BACKUPXE_TEST_BACKUP_DIR is not set: no directory on the server for the trial file",
                "set BACKUPXE_TEST_BACKUP_DIR to a directory the server can write (docs/development.md, Against a real SQL Server)");
        }

        var database = TestDatabase();
        var (session, client) = await InstallTuneSessionAsync(factory);

        try
        {
            var source = new EventFileLiveSource(factory.Settings.Server, factory, session, ensureSession: false, new EventFileTailOptions(), new MemoryCheckpoints(), TimeSpan.Zero);
            await using var capture = new TrialOperationCapture(source, new DiagnosisSettings());
            var host = new LiveTrialHost(factory, session, capture);
            var request = new TuneRequest(database, [directory], TuneRequest.DefaultMemoryBudgetBytes, TimeSpan.FromMinutes(5), TimeSpan.FromSeconds(5), Convert.ToHexStringLower(Guid.NewGuid().ToByteArray()[..4]));
            Assert.Empty(await host.CheckReadyAsync(request, CancellationToken.None));

            var first = TrialStatement.ToFiles(database, [directory], TrialOptions.Defaults, request.RunId, 1, 1);
            var second = TrialStatement.ToFiles(database, [directory], TrialOptions.Defaults with { BufferCount = 16, MaxTransferSizeBytes = 4 * 1024 * 1024 }, request.RunId, 2, 1);
            output.WriteLine($"Trial files kept on the server (remove them): {first.Devices[0]}, {second.Devices[0]}");
            var defaults = await host.RunTrialAsync(first, request.Window, CancellationToken.None);
            var toDisk = await host.RunTrialAsync(second, request.Window, CancellationToken.None);

            foreach (var trial in new[] { defaults, toDisk })
            {
                Assert.Equal(database, trial.Operation.Database, ignoreCase: true);
                Assert.True(trial.WallSeconds < 5 + 60 + 60, "stopped at its window, confirmed, and captured within the timeouts");
                Assert.NotNull(trial.Operation.BufferConfig);
            }

            Assert.Equal(16, toDisk.Operation.BufferConfig!.BufferCount);
            Assert.Equal(4L * 1024 * 1024, toDisk.Operation.BufferConfig.MaxTransferSizeBytes);
            Assert.False(await host.BackupOrRestoreRunningAsync(database, CancellationToken.None));
        }
        finally
        {
            await client.UninstallAsync(CancellationToken.None);
        }
    }

    /// <summary>
    /// A small whole tune on a real server, only with BACKUPXE_TEST_SQL, BACKUPXE_TEST_BACKUP_DIR and
    /// BACKUPXE_TEST_SCRATCH_DIR (a directory on the server for the scratch database's files): the read ceilings to NUL
    /// as tune takes them, the baseline and guided trials into the backup directory, then restore trials of the first
    /// trial backup that finished, each into a new scratch database that is dropped after it. 5 s windows, a 3 minute
    /// budget; BACKUPXE_TEST_DATABASE (model when unset) is small enough for a trial to finish.
    /// </summary>
    [Fact]
    public async Task A_small_tune_with_restore_trials_runs_and_cleans_up_on_a_real_server()
    {
        var factory = SqlServerIntegrationTests.Factory();
        var directory = Environment.GetEnvironmentVariable("BACKUPXE_TEST_BACKUP_DIR");
        var scratch = Environment.GetEnvironmentVariable("BACKUPXE_TEST_SCRATCH_DIR");
        if (string.IsNullOrWhiteSpace(directory) || string.IsNullOrWhiteSpace(scratch))
        {
            Skipped.Because("BACKUPXE_TEST_BACKUP_DIR or BACKUPXE_TEST_SCRATCH_DIR is not set: no directories on the server for the trial files and the scratch database",
                "set both to directories the server can write (docs/development.md, Against a real SQL Server)");
        }

        var database = TestDatabase();
        var (session, client) = await InstallTuneSessionAsync(factory);

        try
        {
            var source = new EventFileLiveSource(factory.Settings.Server, factory, session, ensureSession: false, new EventFileTailOptions(), new MemoryCheckpoints(), TimeSpan.Zero);
            await using var capture = new TrialOperationCapture(source, new DiagnosisSettings());
            var host = new LiveTrialHost(factory, session, capture);
            var request = new TuneRequest(database, [directory], 256L * 1024 * 1024, TimeSpan.FromMinutes(3), TimeSpan.FromSeconds(5), Convert.ToHexStringLower(Guid.NewGuid().ToByteArray()[..4]))
            {
                AcceptUnknownFreeSpace = true,
                Restore = new RestoreTuneRequest([], scratch),
            };

            var result = await new Tuner(host, request).RunAsync(CancellationToken.None);
            foreach (var file in result.KeptFiles)
            {
                output.WriteLine($"Trial file kept on the server (remove it): {file.Path}");
            }

            output.WriteLine(result.StopReason);
            Assert.False(result.Refused, result.StopReason);
            Assert.NotNull(result.ReadCeiling);
            Assert.NotNull(result.Baseline);
            Assert.All(result.Trials.SelectMany(t => t.Runs), run => Assert.True(run.BufferMemoryBytes is null or <= 256L * 1024 * 1024));
            Assert.All(result.Trials, t => Assert.False(t.OptionsDiffer, string.Join("; ", t.Differences)));

            var restore = Assert.IsType<RestoreTuningResult>(result.Restore);
            output.WriteLine(restore.StopReason);
            Assert.NotEmpty(restore.Trials);
            Assert.Empty(restore.NotDropped);
            Assert.All(restore.Trials, t => Assert.NotNull(t.Limit));
            foreach (var run in restore.Trials.SelectMany(t => t.Runs))
            {
                Assert.False(await host.DatabaseExistsAsync(run.ScratchDatabase, CancellationToken.None), $"{run.ScratchDatabase} was not dropped");
            }

            Assert.False(await host.BackupOrRestoreRunningAsync(database, CancellationToken.None));
        }
        finally
        {
            await client.UninstallAsync(CancellationToken.None);
        }
    }

    /// <summary>BACKUPXE_TEST_DATABASE, or model when unset.</summary>
    private static string TestDatabase()
        => Environment.GetEnvironmentVariable("BACKUPXE_TEST_DATABASE") is { Length: > 0 } name ? name : "model";

    /// <summary>Creates the trials' capture session, or skips the test, visibly, when the login or server cannot host it.</summary>
    private static async Task<(CaptureSessionSettings Session, SessionClient Client)> InstallTuneSessionAsync(SqlConnectionFactory factory)
    {
        var session = new CaptureSessionSettings("BackupXe_TuneTest", "BackupXe_TuneTest.xel");
        var client = new SessionClient(factory, session);
        var installed = await client.InstallAsync(CancellationToken.None);
        if (installed.Problems.Count > 0)
        {
            Skipped.Because("the test login or server cannot host the session: " + string.Join(" ", installed.Problems.Select(p => p.Message)),
                "grant the login what docs/permissions.md lists for session install, or point BACKUPXE_TEST_SQL at a server that allows it");
        }

        return (session, client);
    }

    private sealed class MemoryCheckpoints : IEventFileCheckpointStore
    {
        private EventFileCheckpoint? _saved;

        public Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken) => Task.FromResult(_saved);

        public Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken)
        {
            _saved = checkpoint;
            return Task.CompletedTask;
        }
    }
}
