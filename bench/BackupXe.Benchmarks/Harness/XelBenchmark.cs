using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Testing.Xel;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// The .xel decoder against a bare sequential read of the same file in the same run, at two sizes (1x and 10x),
/// with peak memory. The file is built by the test-only writer (proven byte for byte on the genuine fixture) from
/// a buffer-starved backup: progress traces and thousands of wait_info events over 64 KB event buffers, the event
/// buffers repeated to reach the size (the decoder's work per byte does not depend on the values).
/// </summary>
public static class XelBenchmark
{
    private const int BufferSize = 64 * 1024;

    public static async Task<int> RunAsync(int measuredRuns, long baseMegabytes, string? keepDirectory)
    {
        var directory = keepDirectory ?? Path.Combine(Path.GetTempPath(), "backupxe-xel-bench-" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Directory.CreateDirectory(directory);
        try
        {
            Console.WriteLine($"# BackupXe .xel decoding ({measuredRuns} measured runs after 1 warm-up, median reported)");
            Console.WriteLine();
            Console.WriteLine($"- processors: {Environment.ProcessorCount}, runtime: {Environment.Version}, server GC: {GCSettings.IsServerGC}");
            Console.WriteLine();
            // CPU seconds beside wall seconds: on a shared machine the wall clock also counts time spent waiting for a
            // core, while the process's CPU time counts only the work it did.
            Console.WriteLine("| File | MB | Events | Path | Median wall s | Median CPU s | MB/s (CPU) | Events/s (CPU) | vs bare read (CPU) | vs bare read (wall) | Peak heap MB | Peak working set MB |");
            Console.WriteLine("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            var ok = true;
            foreach (var scale in new[] { 1, 10 })
            {
                var path = Path.Combine(directory, $"backup-{scale}x.xel");
                var events = Build(path, baseMegabytes * scale * 1_048_576, member: 0);
                var megabytes = new FileInfo(path).Length / 1_048_576.0;
                var bare = await MeasureAsync(measuredRuns, () => Task.FromResult(BareRead(path))).ConfigureAwait(false);
                var analysed = await MeasureAsync(measuredRuns, () => DecodeAnalysedAsync(path)).ConfigureAwait(false);
                var whole = await MeasureAsync(measuredRuns, () => DecodeWholeAsync(path)).ConfigureAwait(false);
                ok &= analysed.Events == events && whole.Events == events && analysed.Problems == 0 && whole.Problems == 0;
                foreach (var (name, m) in new[] { ("bare sequential read", bare), ("decode for analysis (TraceEvents)", analysed), ("decode every field (events listing)", whole) })
                {
                    Console.WriteLine(string.Create(
                        CultureInfo.InvariantCulture,
                        $"| {scale}x | {megabytes:F0} | {events:N0} | {name} | {m.Seconds:F3} | {m.CpuSeconds:F3} | {megabytes / m.CpuSeconds:F0} | {(m.Events == 0 ? "-" : (m.Events / m.CpuSeconds).ToString("N0", CultureInfo.InvariantCulture))} | {bare.CpuSeconds / m.CpuSeconds:F2}x | {bare.Seconds / m.Seconds:F2}x | {m.PeakHeap / 1_048_576.0:F1} | {m.PeakWorkingSet / 1_048_576.0:F0} |"));
                }

                File.Delete(path);
            }

            return ok ? 0 : 1;
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
    /// Writes a file for whole-process runs (docs/performance.md): <c>wait-info</c>, the file this verb measures, or
    /// <c>genuine</c>, the genuine fixture's event buffer (logins, RPCs, batches of about 1.3 KB) repeated after its
    /// header and metadata. Prints the events written.
    /// </summary>
    public static int Write(string kind, long megabytes, string path, string fixture)
    {
        if (WriteFile(kind, megabytes, path, fixture) is not { } events)
        {
            Console.Error.WriteLine("xel-file: kind is wait-info or genuine");
            return 1;
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{path}: {new FileInfo(path).Length / 1_048_576.0:F0} MB, {events} events"));
        return 0;
    }

    /// <summary>
    /// Writes a .xel of about <paramref name="megabytes"/>; its event count, or null for a kind not known.
    /// <paramref name="member"/> numbers the files of a rollover set, whose contents must differ as a real set's do:
    /// the CLI reads a byte-identical copy once, so a set of equal files would measure one file against a read of all.
    /// </summary>
    internal static long? WriteFile(string kind, long megabytes, string path, string fixture, int member = 0)
    {
        var target = megabytes * 1_048_576;
        long events;
        switch (kind)
        {
            case "wait-info":
                events = Build(path, target, member);
                break;
            case "genuine":
                var image = File.ReadAllBytes(fixture);
                var eventsStart = 0x5000;
                var chunk = image.Length - eventsStart;
                using (var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20))
                {
                    file.Write(image, 0, eventsStart);
                    events = 0;
                    // The genuine buffers cannot be re-timed, so a later member is shorter by a buffer each: no two are equal.
                    while (file.Length < target - (member * (long)chunk))
                    {
                        file.Write(image, eventsStart, chunk);
                        events += 149;
                    }
                }

                break;
            default:
                return null;
        }

        return events;
    }

    /// <summary>Writes the header and metadata once, then the backup's event buffers until the file reaches its size.</summary>
    private static long Build(string path, long targetBytes, int member)
    {
        var events = BuiltBackupScenario.BufferStarved(nightsLater: member);
        var image = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, out var layout, BufferSize);
        var eventsStart = layout.EventBuffers[0].Offset;
        using var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20);
        file.Write(image, 0, eventsStart);
        long written = 0;
        while (file.Length < targetBytes)
        {
            file.Write(image, eventsStart, image.Length - eventsStart);
            written += events.Count;
        }

        return written;
    }

    private static Measure BareRead(string path)
    {
        var buffer = new byte[64 * 1024];
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 64 * 1024, FileOptions.SequentialScan);
        long total = 0;
        int read;
        while ((read = stream.Read(buffer)) > 0)
        {
            total += read;
        }

        return new Measure(0, 0, 0, 0, 0);
    }

    private static async Task<Measure> DecodeAnalysedAsync(string path)
    {
        var status = new SourceStatus();
        long events = 0;
        await foreach (var _ in new XelFileSource(path).ReadEventsAsync(status, CancellationToken.None).ConfigureAwait(false))
        {
            events++;
        }

        // Begin waits are counted but not analysed; the status counts every record decoded.
        return new Measure(0, status.Events, status.Problems.Count, 0, 0);
    }

    private static async Task<Measure> DecodeWholeAsync(string path)
    {
        var status = new SourceStatus();
        await foreach (var _ in new XelFileSource(path).ReadXeEventsAsync(status, CancellationToken.None).ConfigureAwait(false))
        {
        }

        return new Measure(0, status.Events, status.Problems.Count, 0, 0);
    }

    private static async Task<Measure> MeasureAsync(int measuredRuns, Func<Task<Measure>> run)
    {
        var results = new List<Measure>();
        for (var i = 0; i <= measuredRuns; i++)
        {
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            var sampler = new MemorySampler(TimeSpan.FromMilliseconds(20));
            var cpu = Process.GetCurrentProcess().TotalProcessorTime;
            var stopwatch = Stopwatch.StartNew();
            Measure measure;
            try
            {
                measure = await run().ConfigureAwait(false);
                stopwatch.Stop();
                measure = measure with { CpuSeconds = (Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalSeconds };
            }
            finally
            {
                sampler.Dispose();
            }

            if (i > 0)
            {
                results.Add(measure with { Seconds = stopwatch.Elapsed.TotalSeconds, PeakHeap = sampler.PeakHeapSize, PeakWorkingSet = sampler.PeakWorkingSet });
            }
        }

        var median = results.OrderBy(r => r.Seconds).ElementAt((results.Count - 1) / 2);
        var medianCpu = results.OrderBy(r => r.CpuSeconds).ElementAt((results.Count - 1) / 2).CpuSeconds;
        return median with { CpuSeconds = medianCpu, PeakHeap = results.Max(r => r.PeakHeap), PeakWorkingSet = results.Max(r => r.PeakWorkingSet) };
    }

    private sealed record Measure(double Seconds, long Events, int Problems, long PeakHeap, long PeakWorkingSet)
    {
        /// <summary>Process CPU time over the run (includes the memory sampler's few samples and any GC threads).</summary>
        public double CpuSeconds { get; init; }
    }
}
