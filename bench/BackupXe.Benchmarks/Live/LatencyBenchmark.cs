using System.Diagnostics;
using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;
using BackupXe.Testing.Tds;

namespace BackupXe.Benchmarks.Live;

/// <summary>
/// The <c>file</c> transport's added latency: from the moment the simulated server emits a row (its event timestamp,
/// the wall clock at emission) to the moment <see cref="EventFileLiveSource"/>, the daemon's source, hands the event
/// to the pipeline, through Microsoft.Data.SqlClient 2.1.4 and the TDS double on loopback, per poll interval. The
/// double shows a row as soon as it is emitted; a real server adds its session's dispatch latency (BackupXe's
/// session: MAX_DISPATCH_LATENCY = 2 SECONDS) before the row is in the file.
/// </summary>
public static class LatencyBenchmark
{
    public static async Task<int> RunAsync(double[] pollSeconds, double eventsPerMinute, double seconds, string capture)
    {
        var templates = SimulatedEventFile.Templates(capture);
        Console.WriteLine($"machine: {Environment.ProcessorCount} cores; load average before: {File.ReadAllText("/proc/loadavg").Trim()}");
        Console.WriteLine("| poll | events/min | events measured | latency p50 | p95 | p99 | max |");
        Console.WriteLine("|---|---|---|---|---|---|---|");
        foreach (var poll in pollSeconds)
        {
            Console.WriteLine(await MeasureAsync(poll, eventsPerMinute, seconds, templates).ConfigureAwait(false));
        }

        return 0;
    }

    private static async Task<string> MeasureAsync(double poll, double eventsPerMinute, double seconds, IReadOnlyList<(string, string)> templates)
    {
        var folder = Directory.CreateTempSubdirectory("backupxe-latency-").FullName;
        var file = new SimulatedEventFile(templates, eventsPerMinute / 60, DateTime.UtcNow, Stopwatch.GetTimestamp());
        await using var instance = SimulatedInstance.Start(file);
        var source = new EventFileLiveSource(
            "latency",
            new SqlConnectionFactory(TdsClient.Settings(instance.Server)),
            new CaptureSessionSettings(),
            ensureSession: false,
            new EventFileTailOptions { PollInterval = TimeSpan.FromSeconds(poll) },
            new SqliteCheckpointStore(Path.Combine(folder, "checkpoints.db"), TimeProvider.System),
            TimeSpan.FromSeconds(5));
        var latencies = new List<double>();
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(seconds));
        var warmUp = Stopwatch.StartNew();
        try
        {
            await foreach (var traceEvent in source.ReadEventsAsync(new SourceStatus(), stop.Token).ConfigureAwait(false))
            {
                var latency = (DateTime.UtcNow - traceEvent.Timestamp).TotalMilliseconds;
                // The first reads catch up with what was emitted while connecting: not a steady-state figure.
                if (warmUp.Elapsed > TimeSpan.FromSeconds(3))
                {
                    latencies.Add(latency);
                }
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // The measuring window ended.
        }

        Directory.Delete(folder, recursive: true);
        latencies.Sort();
        double At(double p) => latencies.Count == 0 ? double.NaN : latencies[Math.Min(latencies.Count - 1, (int)(p * latencies.Count))];
        return string.Create(CultureInfo.InvariantCulture,
            $"| {poll} s | {eventsPerMinute:N0} | {latencies.Count:N0} | {At(0.5):N0} ms | {At(0.95):N0} ms | {At(0.99):N0} ms | {(latencies.Count == 0 ? double.NaN : latencies[^1]):N0} ms |");
    }
}
