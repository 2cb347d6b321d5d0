using System.Globalization;
using BackupXe.Benchmarks.Harness;
using BackupXe.Benchmarks.Synthetic;

namespace BackupXe.Benchmarks;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        switch (args.FirstOrDefault())
        {
            case "samples":
                WriteSamples(args.Length > 1 ? args[1] : "samples");
                return 0;
            case "bench":
                // Optional: measured runs (default 3) and a directory to keep the inputs in (default: a temp dir, deleted).
                var runs = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3;
                return await ThroughputBenchmark.RunAsync(runs, args.Length > 2 ? args[2] : null).ConfigureAwait(false);
            case "xel":
                // Optional: measured runs (default 3), size of the 1x file in MB (default 64; 10x is also run), a directory to keep inputs in.
                return await XelBenchmark.RunAsync(
                    args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3,
                    args.Length > 2 ? long.Parse(args[2], CultureInfo.InvariantCulture) : 64,
                    args.Length > 3 ? args[3] : null).ConfigureAwait(false);
            case "xel-file":
                // wait-info|genuine, size in MB, path, and for genuine the fixture (its single event buffer starts at 0x5000).
                return XelBenchmark.Write(
                    args[1],
                    long.Parse(args[2], CultureInfo.InvariantCulture),
                    args[3],
                    args.Length > 4 ? args[4] : Path.Combine("tests", "BackupXe.Tests", "Fixtures", "xel", "TestXel_0.xel"));
            case "process":
                // CLI (dll or executable, or "publish" to publish it for this runtime first, as users install it), base
                // events (1x), pairs, factors (comma-separated), directory to keep inputs in (- for a temporary one),
                // concurrent backups (comma-separated, or none).
                return await ProcessBenchmark.RunAsync(
                    args[1],
                    args.Length > 2 ? long.Parse(args[2], CultureInfo.InvariantCulture) : 1_000_000,
                    args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 5,
                    args.Length > 4 ? args[4].Split(',').Select(f => double.Parse(f, CultureInfo.InvariantCulture)).ToArray() : [0.1, 1, 10],
                    args.Length > 5 && args[5] != "-" ? args[5] : null,
                    args.Length > 6 ? args[6].Split(',').Where(c => c != "none").Select(c => int.Parse(c, CultureInfo.InvariantCulture)).ToArray() : [100, 1000]).ConfigureAwait(false);
            case "xel-set":
                // CLI (executable or dll, or "publish"), kind (wait-info|genuine), 1x in MB, MB per member file, pairs,
                // factors (comma-separated), directory to keep the sets in (- for a temporary one).
                return await XelSetBenchmark.RunAsync(
                    args[1],
                    args.Length > 2 ? args[2] : "wait-info",
                    args.Length > 3 ? long.Parse(args[3], CultureInfo.InvariantCulture) : 128,
                    args.Length > 4 ? long.Parse(args[4], CultureInfo.InvariantCulture) : 128,
                    args.Length > 5 ? int.Parse(args[5], CultureInfo.InvariantCulture) : 3,
                    args.Length > 6 ? args[6].Split(',').Select(f => double.Parse(f, CultureInfo.InvariantCulture)).ToArray() : [1, 10],
                    args.Length > 7 && args[7] != "-" ? args[7] : null).ConfigureAwait(false);
            case "daemon":
                // Instance counts (comma-separated), events per minute per instance, seconds measured, poll interval in
                // seconds, the capture whose rows are played (docs/performance.md, "Live: one daemon, many instances").
                return await Live.DaemonBenchmark.RunAsync(
                    args.Length > 1 ? args[1].Split(',').Select(c => int.Parse(c, CultureInfo.InvariantCulture)).ToArray() : [100, 1000],
                    args.Length > 2 ? double.Parse(args[2], CultureInfo.InvariantCulture) : 3000,
                    args.Length > 3 ? double.Parse(args[3], CultureInfo.InvariantCulture) : 60,
                    args.Length > 4 ? double.Parse(args[4], CultureInfo.InvariantCulture) : 1,
                    args.Length > 5 ? args[5] : Path.Combine("samples", "buffer-starved-backup.xml")).ConfigureAwait(false);
            case "latency":
                // Poll intervals in seconds (comma-separated), events per minute, seconds per interval, the capture played.
                return await Live.LatencyBenchmark.RunAsync(
                    args.Length > 1 ? args[1].Split(',').Select(p => double.Parse(p, CultureInfo.InvariantCulture)).ToArray() : [0.1, 0.25, 1],
                    args.Length > 2 ? double.Parse(args[2], CultureInfo.InvariantCulture) : 3000,
                    args.Length > 3 ? double.Parse(args[3], CultureInfo.InvariantCulture) : 20,
                    args.Length > 4 ? args[4] : Path.Combine("samples", "buffer-starved-backup.xml")).ConfigureAwait(false);
            case "stages":
                // An ERRORLOG, runs per stage (default 10), then stage names to run only those.
                return StageBenchmark.Run(
                    args[1],
                    args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 10,
                    args.Length > 3 ? args[3..] : null);
            case "allocations":
                // An ERRORLOG and one stage (default json-one-thread): the allocated types, sampled by the runtime.
                return AllocationProfile.Run(args[1], args.Length > 2 ? args[2] : "json-one-thread");
            case "speed-guard":
                // CLI, docs/performance.md, pairs (default 5; with --instructions, counts per input, default 1), --update to
                // record the figures instead of checking them, --instructions to count instructions under valgrind.
                var counts = args.Length > 3 && !args[3].StartsWith("--", StringComparison.Ordinal) ? int.Parse(args[3], CultureInfo.InvariantCulture) : (int?)null;
                return args.Contains("--instructions")
                    ? await InstructionGuard.RunAsync(args[1], args[2], counts ?? 1, args.Contains("--update")).ConfigureAwait(false)
                    : await RatioGuard.RunAsync(args[1], args[2], counts ?? 5, args.Contains("--update")).ConfigureAwait(false);
            case "generate":
                // xe-xml|errorlog, events, path: the inputs of `process` and the speed guard, for profiling by hand.
                ProcessBenchmark.Generate(args[1], args[3], long.Parse(args[2], CultureInfo.InvariantCulture));
                return 0;
            case "bare-xml" or "bare-lines":
                return ProcessBenchmark.Bare(args[0], args[1]);
            default:
                Console.Error.WriteLine("usage: BackupXe.Benchmarks samples [DIR] | bench [RUNS] [KEEP-DIR] | xel [RUNS] [MB] [KEEP-DIR] | xel-file wait-info|genuine MB PATH [FIXTURE] | process CLI|publish [BASE-EVENTS] [PAIRS] [FACTORS] [KEEP-DIR|-] [CONCURRENT|none] | xel-set CLI|publish [wait-info|genuine] [MB] [MEMBER-MB] [PAIRS] [FACTORS] [KEEP-DIR|-] | daemon [INSTANCES] [EVENTS-PER-MIN] [SECONDS] [POLL-S] [CAPTURE] | latency [POLLS-S] [EVENTS-PER-MIN] [SECONDS] [CAPTURE] | stages ERRORLOG [RUNS] [STAGE...] | allocations ERRORLOG [STAGE] | speed-guard CLI DOC [PAIRS|COUNTS] [--update] [--instructions] | generate xe-xml|errorlog EVENTS PATH | bare-xml FILE | bare-lines FILE");
                return 1;
        }
    }

    /// <summary>Regenerates the bundled samples; deterministic, so a diff shows any change in the generator.</summary>
    private static void WriteSamples(string directory)
    {
        Directory.CreateDirectory(directory);
        var backup = Scenarios.BufferStarvedBackup(new DateTime(2024, 5, 1, 1, 30, 0, 120, DateTimeKind.Utc), 61, "SalesDB", @"\\backup01\sql\SalesDB_FULL_20240501.bak", seed: 20240501);
        Console.WriteLine($"buffer-starved-backup.xml: {XeXmlTraceWriter.Write(Path.Combine(directory, "buffer-starved-backup.xml"), backup)} events");
        var restore = Scenarios.LogZeroingRestore(new DateTime(2024, 5, 2, 6, 15, 3, 410, DateTimeKind.Unspecified), 58, "SalesArchive", @"\\backup01\sql\SalesArchive_FULL.bak");
        Console.WriteLine($"log-zeroing-restore.log: {ErrorlogTraceWriter.Write(Path.Combine(directory, "log-zeroing-restore.log"), restore)} lines");
    }
}
