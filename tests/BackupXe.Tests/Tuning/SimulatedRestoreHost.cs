using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// The simulated server with restore trials: a restore's copy rate grows with buffer memory up to a ceiling as its
/// <see cref="RestoreModel"/> says, with the backup model's run-to-run noise. Its captures hold what a real one holds: the buffer configuration with Total buffer space and memory limit, the
/// files zeroed (the log always, the data file without Instant File Initialization), the transfer-data phase, a redo
/// phase when asked, and the waits of what limits it (many short BACKUPBUFFER waits below the ceiling; BACKUPIO of the
/// device reader when the backup reads slowly; BACKUPBUFFER with an idle reader when the data files write slowly).
/// </summary>
internal sealed class SimulatedRestoreHost(SimulatedServer backups, int seed = 7) : IRestoreTrialHost
{
    private readonly Random _random = new(seed);
    private double _clock;

    public RestoreModel Model { get; init; } = new();

    public double ZeroingSeconds { get; init; } = 2;

    public double RedoSeconds { get; init; }

    /// <summary>False: the capture holds no waits (a session without wait_info).</summary>
    public bool CapturesWaits { get; init; } = true;

    /// <summary>"BUFFERCOUNT": the server silently uses its default count (6) whatever the restore asks for.</summary>
    public string? IgnoredOption { get; init; }

    /// <summary>Reported Total buffer space over BUFFERCOUNT x MAXTRANSFERSIZE.</summary>
    public double BufferRatio { get; init; } = 1;

    /// <summary>Every restore run, in order: its scratch database and options.</summary>
    public List<RestoreTrialStatement> Restores { get; } = [];

    public List<string> Dropped { get; } = [];

    /// <summary>The largest Total buffer space any restore was given.</summary>
    public long MaxBufferBytes { get; private set; }

    /// <summary>The memory limit the captures report (the backup model's).</summary>
    public long MemoryLimitBytes => backups.Model.MemoryLimitBytes;

    public bool DeletesFiles => backups.DeletesFiles;

    public Task<TuningFacts> DescribeAsync(string database, CancellationToken cancellationToken) => backups.DescribeAsync(database, cancellationToken);

    public Task<bool> BackupOrRestoreRunningAsync(string database, CancellationToken cancellationToken) => backups.BackupOrRestoreRunningAsync(database, cancellationToken);

    public Task<IReadOnlyList<string>> CheckReadyAsync(TuneRequest request, CancellationToken cancellationToken) => backups.CheckReadyAsync(request, cancellationToken);

    public Task<FreeSpace> FreeSpaceAsync(string directory, CancellationToken cancellationToken) =>
        Task.FromResult(FreeSpace.Of(10L << 40));

    public Task<bool?> FileExistsAsync(string path, CancellationToken cancellationToken) => backups.FileExistsAsync(path, cancellationToken);

    public Task<TrialCapture> RunTrialAsync(TrialStatement statement, TimeSpan window, CancellationToken cancellationToken) => backups.RunTrialAsync(statement, window, cancellationToken);

    public Task DeleteFileAsync(string path, CancellationToken cancellationToken) => backups.DeleteFileAsync(path, cancellationToken);

    public Task<IReadOnlyList<string>> CheckRestoreReadyAsync(CancellationToken cancellationToken) => Task.FromResult<IReadOnlyList<string>>([]);

    public Task<IReadOnlyList<BackupFileEntry>> FileListAsync(IReadOnlyList<string> from, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<BackupFileEntry>>([new("Sales", "D", backups.Model.DatabaseBytes), new("Sales_log", "L", 1L << 30)]);

    public Task<bool> DatabaseExistsAsync(string name, CancellationToken cancellationToken) => Task.FromResult(false);

    public Task<bool?> InstantFileInitializationAsync(CancellationToken cancellationToken) => Task.FromResult<bool?>(true);

    /// <summary>Called as a restore run starts (its number, 1-based); a test cancels here to stop one midway.</summary>
    public Action<int>? OnRestoreStarted { get; set; }

    /// <summary>"restore NAME", "stop", "drop NAME", in order.</summary>
    public List<string> Calls { get; } = [];

    public Task<TrialCapture> RunRestoreAsync(RestoreTrialStatement statement, TimeSpan window, CancellationToken cancellationToken)
    {
        Restores.Add(statement);
        Calls.Add("restore " + statement.Database);
        OnRestoreStarted?.Invoke(Restores.Count);
        if (cancellationToken.IsCancellationRequested)
        {
            // As the live server does: the restore is stopped before the call returns.
            Calls.Add("stop");
            cancellationToken.ThrowIfCancellationRequested();
        }

        var count = IgnoredOption == "BUFFERCOUNT" ? RestoreModel.DefaultBufferCount : statement.BufferCount ?? RestoreModel.DefaultBufferCount;
        var size = statement.MaxTransferSizeBytes ?? ServerModel.MB;
        var (rate, limit) = Model.Rate(count, size);
        rate *= Math.Max(0.5, 1 + (backups.Model.Noise * _random.Gaussian()));
        var copy = window.TotalSeconds;
        var start = new DateTime(2026, 1, 1, 3, 0, 0, DateTimeKind.Utc).AddSeconds(_clock);
        var copyStart = start.AddSeconds(ZeroingSeconds);
        var redoStart = copyStart.AddSeconds(copy);
        var seconds = ZeroingSeconds + copy + RedoSeconds;
        _clock += seconds + 2;
        var total = (long)(count * size * BufferRatio);
        MaxBufferBytes = Math.Max(MaxBufferBytes, total);
        var phases = new List<PhaseReport> { new(Kebab.Of(OperationPhase.TransferData), copyStart, redoStart, copy) };
        if (RedoSeconds > 0)
        {
            phases.Add(new PhaseReport(Kebab.Of(OperationPhase.Redo), redoStart, redoStart.AddSeconds(RedoSeconds), RedoSeconds));
        }

        var operation = new OperationReport
        {
            Kind = OperationKind.Restore,
            Scope = OperationScope.Database,
            Database = statement.Database,
            Status = OperationStatus.Failed,
            FailureReason = "RESTORE DATABASE is terminating abnormally.",
            Start = start,
            End = start.AddSeconds(seconds),
            DurationSeconds = seconds,
            BytesProcessed = (long)(rate * ServerModel.MB * copy),
            BufferConfig = new BufferConfigReport
            {
                BufferCount = count,
                MaxTransferSizeBytes = size,
                TotalBufferBytes = total,
                TotalBufferBytesReported = true,
                MemoryLimitBytes = backups.Model.MemoryLimitBytes,
            },
            Zeroing = [new ZeroingReport(statement.Moves[^1].Path, 131072, start, copyStart, ZeroingSeconds)],
            Phases = phases,
            Waits = CapturesWaits ? Waits(limit, copy) : [],
            Progress = _random.WobblingProgress(copyStart, copy, rate, "percent"),
        };
        return Task.FromResult(new TrialCapture(operation, null, seconds + 2, Finished: false));
    }

    public Task<string?> DropAsync(RestoreTrialStatement statement, CancellationToken cancellationToken)
    {
        Dropped.Add(statement.Database);
        Calls.Add("drop " + statement.Database);
        return Task.FromResult<string?>(null);
    }

    /// <summary>Over two threads (one device reader, one data file writer), as <see cref="SimulatedServer"/> shapes a backup's.</summary>
    private static WaitReport[] Waits(string limit, double seconds)
    {
        (double bufferShare, double bufferAverageMs, double ioShare) = limit switch
        {
            "buffers" => (0.45, 2.0, 0.10),
            "data-file-write" => (0.55, 25.0, 0.05),
            _ => (0.30, 20.0, 0.65),
        };
        var bufferMs = (long)(bufferShare * seconds * 2 * 1000);
        var ioMs = (long)(ioShare * seconds * 1000);
        return
        [
            new WaitReport(BackupWaitTypes.BackupBuffer, Math.Max(1, (long)(bufferMs / bufferAverageMs)), bufferMs, (long)(bufferAverageMs * 20), bufferMs / 20),
            new WaitReport(BackupWaitTypes.BackupIo, Math.Max(1, ioMs / 5), ioMs, 200, ioMs / 20),
        ];
    }
}
