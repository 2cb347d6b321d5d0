using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// A server for the tuner's tests: each trial's operation is what a capture of it would hold (buffer configuration
/// with the reported Total buffer space and memory limit, effective options, devices, copy-data phase, BACKUPBUFFER
/// and BACKUPIO waits shaped like the published ones for the side that limits, progress every second), with the rate
/// of <see cref="ServerModel"/> and seeded run-to-run noise. Files, free space, running backups and every call are
/// recorded so the safety rules can be checked.
/// </summary>
internal sealed class SimulatedServer(ServerModel model, IReadOnlyList<string> directories, int seed = 1) : ITrialHost
{
    private static readonly DateTime Epoch = new(2026, 1, 5, 2, 0, 0, DateTimeKind.Utc);
    private readonly Random _random = new(seed);
    private double _clock;

    public ServerModel Model => model;

    /// <summary>Every call in order: "run", "stop", "delete path", "check path"...</summary>
    public List<string> Calls { get; } = [];

    public List<TrialStatement> Statements { get; } = [];

    public HashSet<string> Files { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The media name each file on the volumes carries (its media header).</summary>
    public Dictionary<string, string?> MediaNames { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The bytes each file holds: what the backups written to it wrote (compressed where they compressed).</summary>
    public Dictionary<string, long> FileBytes { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>True: each trial's capture carries sys.dm_exec_requests.percent_complete, sampled every second.</summary>
    public bool SamplesPercentComplete { get; set; }

    public Dictionary<string, long?> FreeBytes { get; } = directories.ToDictionary(d => d, _ => (long?)(10L * 1024 * ServerModel.MB * 1024));

    public bool OtherBackupRunning { get; set; }

    /// <summary>Called as a trial starts (its number, 1-based); a test cancels here to stop a trial midway.</summary>
    public Action<int>? OnTrialStarted { get; set; }

    /// <summary>The largest Total buffer space any trial was given.</summary>
    public long MaxBufferBytes { get; private set; }

    public double WallSeconds { get; private set; }

    public Task<TuningFacts> DescribeAsync(string database, CancellationToken cancellationToken) =>
        Task.FromResult(new TuningFacts(model.DatabaseBytes, CompressionAvailable: true, model.CompressionDefault,
            [.. model.CompressMBps.Keys], model.CompressionLevels, model.Encrypted, Linux: false));

    public Task<bool> BackupOrRestoreRunningAsync(string database, CancellationToken cancellationToken) => Task.FromResult(OtherBackupRunning);

    /// <summary>False to stand for a live server, which keeps trial files for the DBA to delete.</summary>
    public bool DeletesFiles { get; set; } = true;

    /// <summary>What <see cref="CheckReadyAsync"/> reports: a missing permission, the capture not running.</summary>
    public List<string> NotReady { get; } = [];

    public Task<IReadOnlyList<string>> CheckReadyAsync(TuneRequest request, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<string>>([.. NotReady]);

    public Task<FreeSpace> FreeSpaceAsync(string directory, CancellationToken cancellationToken) =>
        Task.FromResult(FreeBytes.TryGetValue(directory, out var free) && free is { } bytes ? FreeSpace.Of(bytes) : FreeSpace.CannotTell("the simulated volume has no free space figure"));

    public Task<bool?> FileExistsAsync(string path, CancellationToken cancellationToken)
    {
        Calls.Add("check " + path);
        return Task.FromResult<bool?>(Files.Contains(path));
    }

    public Task DeleteFileAsync(string path, CancellationToken cancellationToken)
    {
        Calls.Add("delete " + path);
        Files.Remove(path);
        MediaNames.Remove(path);
        FileBytes.Remove(path);
        return Task.CompletedTask;
    }

    public Task<TrialCapture> RunTrialAsync(TrialStatement statement, TimeSpan window, CancellationToken cancellationToken)
    {
        Statements.Add(statement);
        Calls.Add("run " + statement.Sql);
        if (!statement.ToNul)
        {
            foreach (var path in statement.Devices)
            {
                // As the BACKUP page has it: with NOSKIP the media name must match the one on the volume; INIT then
                // overwrites its backup sets, NOINIT appends. A file of another media set is never written.
                if (!Files.Add(path) && (statement.MediaName is null || !string.Equals(MediaNames[path], statement.MediaName, StringComparison.Ordinal)))
                {
                    throw new InvalidOperationException($"the simulated server was asked to write over {path}");
                }

                if (statement.Overwrite || !FileBytes.ContainsKey(path))
                {
                    FileBytes[path] = 0;
                }

                MediaNames[path] = statement.MediaName;
            }
        }

        OnTrialStarted?.Invoke(Statements.Count);
        if (cancellationToken.IsCancellationRequested)
        {
            // As the live server does: the backup is stopped before the call returns.
            Calls.Add("stop");
            cancellationToken.ThrowIfCancellationRequested();
        }

        var toNul = statement.ToNul;
        var (rate, limit) = model.Rate(statement.Options, directories, toNul);
        rate *= Math.Max(0.5, 1 + (model.Noise * _random.Gaussian()));
        var effective = model.Effective(statement.Options, toNul);
        var fullSeconds = model.DatabaseBytes / (rate * ServerModel.MB);
        var finished = fullSeconds <= window.TotalSeconds;
        var seconds = Math.Min(fullSeconds, window.TotalSeconds);
        var start = Epoch.AddSeconds(_clock);
        _clock += seconds + 2;
        WallSeconds += seconds + 2;
        var total = (long)(effective.BufferCount * effective.MaxTransferSize * model.RatioFor(effective.Compression));
        MaxBufferBytes = Math.Max(MaxBufferBytes, total);
        var devices = statement.Devices.Count;
        var operation = new OperationReport
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = statement.Database,
            Status = finished ? OperationStatus.Completed : OperationStatus.Failed,
            FailureReason = finished ? null : "BACKUP DATABASE is terminating abnormally.",
            Start = start,
            End = start.AddSeconds(seconds),
            DurationSeconds = seconds,
            EstimatedBytes = model.DatabaseBytes,
            BytesProcessed = (long)(rate * ServerModel.MB * seconds),
            Devices = [.. statement.Devices.Select(d => new DeviceReport(d))],
            DataFileReaders = 1,
            BufferConfig = new BufferConfigReport
            {
                BufferCount = effective.BufferCount,
                MaxTransferSizeBytes = effective.MaxTransferSize,
                TotalBufferBytes = total,
                TotalBufferBytesReported = true,
                MemoryLimitBytes = model.MemoryLimitBytes,
            },
            Options = new OptionsReport(Checksum: false, Compression: effective.Compression, Encryption: false),
            Phases = [new PhaseReport(Kebab.Of(OperationPhase.CopyData), start, start.AddSeconds(seconds), seconds)],
            Waits = Waits(limit, seconds, devices, statement.Options.Compression ?? model.CompressionDefault),
            Progress = model.ProgressStepShare is { } step
                ? PercentLines(_random.WobblingProgress(start, seconds, rate, "percent"), step)
                : _random.WobblingProgress(start, seconds, rate, "throughput-event"),
        };
        if (!toNul)
        {
            // Each file holds its share of what the backup wrote: the bytes read, less what compression saved.
            var written = (finished ? model.DatabaseBytes : operation.BytesProcessed ?? 0) / (effective.Compression ? model.CompressionRatio[effective.Algorithm] : 1);
            foreach (var path in statement.Devices)
            {
                FileBytes[path] += (long)Math.Ceiling(written / devices);
            }
        }
        if (finished)
        {
            Calls.Add("finished");
        }
        else
        {
            Calls.Add("stop");
        }

        int? block = finished ? effective.BlockSize : null;
        return Task.FromResult(new TrialCapture(operation, toNul ? null : block, seconds + 2, finished)
        {
            PercentSamples = SamplesPercentComplete
                ? [.. Enumerable.Range(0, (int)seconds + 1).Select(t => new PercentSample(start.AddSeconds(t), Math.Min(100, rate * ServerModel.MB * t * 100 / model.DatabaseBytes)))]
                : [],
            History = finished ? new BackupSetFigures(model.DatabaseBytes, Math.Max(1, Math.Round(seconds))) : null,
        });
    }

    /// <summary>The percent messages of a capture without the throughput event: a point only where each step of the database is crossed.</summary>
    private ProgressReport PercentLines(ProgressReport fine, double step)
    {
        var stepBytes = (long)(model.DatabaseBytes * step);
        var points = fine.Points
            .Where((p, i) => i > 0 && p.Bytes / stepBytes > fine.Points[i - 1].Bytes / stepBytes)
            .Select(p => new ProgressPointReport(p.At, p.Bytes / stepBytes * stepBytes))
            .ToList();
        return new ProgressReport("percent", points);
    }

    /// <summary>
    /// Waits shaped as the published ones (docs/backup-internals.md#buffer-count-against-waits): starved buffers give
    /// many short BACKUPBUFFER waits; a slow target gives BACKUPIO most of each writer's time; a slow source or busy
    /// CPUs leave the writers idle, the CPUs queueing (signal time) when compression is the limit.
    /// </summary>
    private static WaitReport[] Waits(string limit, double seconds, int devices, bool compression)
    {
        var threads = devices + 1;
        (double bufferShare, double bufferAverageMs, double ioShare, double signal) = limit switch
        {
            "buffers" => (0.45, 2.0, 0.30, 0.05),
            "write" => (0.30, 20.0, 0.65, 0.05),
            "cpu" => (0.55, 25.0, 0.05, compression ? 0.40 : 0.05),
            _ => (0.55, 25.0, 0.05, 0.05),
        };
        var bufferMs = (long)(bufferShare * seconds * threads * 1000);
        var ioMs = (long)(ioShare * seconds * devices * 1000);
        return
        [
            new WaitReport(BackupWaitTypes.BackupBuffer, Math.Max(1, (long)(bufferMs / bufferAverageMs)), bufferMs, (long)(bufferAverageMs * 20), (long)(bufferMs * signal)),
            new WaitReport(BackupWaitTypes.BackupIo, Math.Max(1, ioMs / 5), ioMs, 200, (long)(ioMs * signal)),
        ];
    }
}
