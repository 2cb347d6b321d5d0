using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using BackupXe.Benchmarks.Synthetic;
using BackupXe.Core.Analysis;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.Sources;


namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// End-to-end throughput of the real analysis path (InputSources.Open, AnalysisSession: merge, correlation, diagnosis) over
/// synthetic XE XML and ERRORLOG inputs of growing size. A plain Release console harness rather than
/// BenchmarkDotNet: each run reads hundreds of MB, so BenchmarkDotNet's pilot and many iterations would take far
/// longer than the budget on the 2-core shared machine, and run-to-run noise here is small next to the sizes.
/// </summary>
public static class ThroughputBenchmark
{
    private static readonly long[] Sizes = [250_000, 500_000, 1_000_000];

    public static async Task<int> RunAsync(int measuredRuns, string? keepDirectory)
    {
        var directory = keepDirectory ?? Path.Combine(Path.GetTempPath(), "backupxe-bench-" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Directory.CreateDirectory(directory);
        try
        {
            Console.WriteLine($"# BackupXe throughput ({measuredRuns} measured runs after 1 warm-up, median reported)");
            Console.WriteLine();
            Console.WriteLine($"- processors: {Environment.ProcessorCount}, runtime: {Environment.Version}, server GC: {GCSettings.IsServerGC}, inputs in {directory}");
            var results = new List<Result>();
            foreach (var format in new[] { "xe-xml", "errorlog" })
            {
                foreach (var size in Sizes)
                {
                    var path = Path.Combine(directory, $"{format}-{size}.{(format == "xe-xml" ? "xml" : "log")}");
                    var generate = Stopwatch.StartNew();
                    var (events, backups) = Generate(format, path, size);
                    Console.Error.WriteLine($"generated {path}: {events} events, {backups} backups, {new FileInfo(path).Length / 1_048_576.0:F0} MB in {generate.Elapsed.TotalSeconds:F1} s");
                    results.Add(await MeasureAsync(format, path, events, backups, measuredRuns).ConfigureAwait(false));
                    // Delete as we go so the 1M inputs of both formats never sit on disk together with the rest.
                    File.Delete(path);
                }
            }

            Console.WriteLine();
            PrintTable(results);
            Console.WriteLine();
            Console.WriteLine("- .xel decoding is measured by the `xel` verb (XelBenchmark), against a bare read of the same file.");
            return results.All(r => r.Problems == 0 && r.EventsRead == r.EventsWritten) ? 0 : 1;
        }
        finally
        {
            if (keepDirectory is null)
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    /// <summary>
    /// Writes back-to-back buffer-starved backups until the input holds at least <paramref name="targetEvents"/>
    /// events. Each backup gets its own start time, spid and database so the correlator sees distinct operations;
    /// they never overlap, as successive jobs on one server would not.
    /// </summary>
    private static (long Events, int Backups) Generate(string format, string path, long targetEvents)
    {
        // The ERRORLOG carries only the progress lines (~150 a backup), the XE XML also the waits (~7,000), so
        // the number of backups needed for a given event count differs by format.
        var perBackup = format == "xe-xml" ? XeXmlTraceWriter.Write(path, Backup(0)) : ErrorlogTraceWriter.Write(path, Backup(0));
        var backups = (int)((targetEvents + perBackup - 1) / perBackup);
        var records = Enumerable.Range(0, backups).SelectMany(Backup);
        var written = format == "xe-xml" ? XeXmlTraceWriter.Write(path, records) : ErrorlogTraceWriter.Write(path, records);
        return (written, backups);
    }

    private static IEnumerable<TraceRecord> Backup(int index)
    {
        // 12 s of copy per backup; one every 30 s keeps them apart with room for the setup and trailer steps.
        var start = new DateTime(2024, 6, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds(30.0 * index);
        var database = "Db" + (index % 97).ToString("D2", CultureInfo.InvariantCulture);
        var device = $@"\\backup01\sql\{database}_FULL_{index:D5}.bak";
        return Scenarios.BufferStarvedBackup(start, 51 + (index % 200), database, device, seed: 1000 + index);
    }

    private static async Task<Result> MeasureAsync(string format, string path, long eventsWritten, int backups, int measuredRuns)
    {
        var runs = new List<Run>();
        for (var i = 0; i <= measuredRuns; i++)
        {
            var run = await RunOnceAsync(path).ConfigureAwait(false);
            var label = i == 0 ? "warm-up" : $"run {i}";
            Console.Error.WriteLine($"  {format} {eventsWritten}: {label} {run.Elapsed.TotalSeconds:F2} s, {run.Operations} operations, heap {Mb(run.PeakHeap):F0} MB, total {Mb(run.PeakTotalMemory):F0} MB, ws {Mb(run.PeakWorkingSet):F0} MB");
            if (i > 0)
            {
                runs.Add(run);
            }
        }

        // Each figure's median on its own: with three runs that is the middle value of each column.
        static T Median<T>(IEnumerable<T> values)
        {
            var sorted = values.Order().ToList();
            return sorted[(sorted.Count - 1) / 2];
        }

        var elapsed = Median(runs.Select(r => r.Elapsed));
        var last = runs[^1];
        return new Result(
            format,
            eventsWritten,
            last.EventsRead,
            backups,
            last.Operations,
            new FileInfo(path).Length,
            elapsed,
            Median(runs.Select(r => r.PeakHeap)),
            Median(runs.Select(r => r.PeakTotalMemory)),
            Median(runs.Select(r => r.PeakWorkingSet)),
            runs.Max(r => r.Problems));
    }

    private static async Task<Run> RunOnceAsync(string path)
    {
        // A full, compacting collection first so each run starts from the same heap and earlier runs' garbage
        // is not counted against this one.
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);

        var sink = new CountingSink();
        long events = 0;
        var stopwatch = Stopwatch.StartNew();
        var sampler = new MemorySampler(TimeSpan.FromMilliseconds(20));
        AnalysisFindings findings;
        try
        {
            var session = new AnalysisSession([InputSources.Open(path)]);
            findings = await session.RunAsync(sink, CancellationToken.None).ConfigureAwait(false);
            events = findings.Inputs.Sum(input => input.Events);
            stopwatch.Stop();
        }
        finally
        {
            // Stopped before its peaks are read so the last sample is included.
            sampler.Dispose();
        }

        return new Run(stopwatch.Elapsed, events, sink.Operations, sampler.PeakHeapSize, sampler.PeakTotalMemory, sampler.PeakWorkingSet, findings.Inputs.Sum(i => i.Problems.Count));
    }

    private static void PrintTable(IReadOnlyList<Result> results)
    {
        Console.WriteLine("| Input | Events | Backups written | Operations found | Input MB | Median wall s | Events/s | Input MB/s | Peak heap MB (HeapSizeBytes) | Peak GetTotalMemory MB | Peak working set MB |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var r in results)
        {
            var seconds = r.Elapsed.TotalSeconds;
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {r.Format} | {r.EventsRead:N0} | {r.Backups:N0} | {r.Operations:N0} | {Mb(r.InputBytes):F1} | {seconds:F2} | {r.EventsRead / seconds:N0} | {Mb(r.InputBytes) / seconds:F1} | {Mb(r.PeakHeap):F1} | {Mb(r.PeakTotalMemory):F1} | {Mb(r.PeakWorkingSet):F1} |"));
        }
    }

    private static double Mb(long bytes) => bytes / 1_048_576.0;

    private sealed record Run(TimeSpan Elapsed, long EventsRead, long Operations, long PeakHeap, long PeakTotalMemory, long PeakWorkingSet, int Problems);

    private sealed record Result(
        string Format,
        long EventsWritten,
        long EventsRead,
        int Backups,
        long Operations,
        long InputBytes,
        TimeSpan Elapsed,
        long PeakHeap,
        long PeakTotalMemory,
        long PeakWorkingSet,
        int Problems);

    /// <summary>Counts and drops reports: holding them would make memory grow with the input by design.</summary>
    private sealed class CountingSink : IOperationSink
    {
        public long Operations { get; private set; }

        public void OnOperationCompleted(OperationReport report) => Operations++;
    }
}
