using System.Globalization;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// A .xel rollover set as users run it: the native CLI's <c>analyze</c> and <c>events</c> (JSON Lines and CSV, into a
/// pipe read and thrown away) on a generated set at 1x and 10x its size, each against a bare read of the same files
/// by a native program (<c>cat</c>), in pairs whose order alternates. Reports wall and CPU time, MB/s and events/s
/// of both, peak memory, and the speed against the bare read; the set's events are counted by its generator.
/// </summary>
public static class XelSetBenchmark
{
    public static async Task<int> RunAsync(string cli, string kind, long baseMegabytes, long memberMegabytes, int pairs, double[] factors, string? keepDirectory)
    {
        var directory = keepDirectory ?? Directory.CreateTempSubdirectory("backupxe-xel-set-").FullName;
        Directory.CreateDirectory(directory);
        try
        {
            if (cli == "publish")
            {
                cli = await ProcessBenchmark.PublishAsync(Path.Combine(directory, "published-cli")).ConfigureAwait(false);
            }

            Console.WriteLine($"# BackupXe on a .xel rollover set ({kind}; {pairs} pairs after 1 warm-up, medians; processors: {Environment.ProcessorCount})");
            Console.WriteLine();
            Console.WriteLine("| set | files | MB | events | command | wall s | CPU s | MB/s (wall) | MB/s (CPU) | events/s (CPU) | peak MB | speed vs bare read (wall) | CPU vs bare read |");
            Console.WriteLine("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            foreach (var factor in factors)
            {
                var megabytes = (long)(baseMegabytes * factor);
                var (pattern, files, events) = Set(directory, kind, megabytes, memberMegabytes);
                var size = files.Sum(f => new FileInfo(f).Length) / 1_048_576.0;
                var set = $"{factor.ToString(CultureInfo.InvariantCulture)}x";
                var bare = new ProcessBenchmark.Child("cat", files);
                (string Name, string[] Arguments)[] commands =
                [
                    ("analyze --format json", ["analyze", pattern, "--format", "json"]),
                    ("events (JSON Lines)", ["events", pattern]),
                    ("events --format csv", ["events", pattern, "--format", "csv"]),
                ];
                foreach (var (name, arguments) in commands)
                {
                    var (ratio, bareRun, cliRun) = await ProcessBenchmark.PairsAsync(pairs, bare, ProcessBenchmark.Cli(cli, arguments)).ConfigureAwait(false);
                    Console.WriteLine(Row(set, files.Length, size, null, "bare read (`cat`)", bareRun, null, null));
                    Console.WriteLine(Row(set, files.Length, size, events, name, cliRun, ratio, bareRun));
                }
            }

            return 0;
        }
        finally
        {
            if (keepDirectory is null)
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    /// <summary>The members of a set of about <paramref name="megabytes"/>, each file <paramref name="memberMegabytes"/> at most, written once.</summary>
    private static (string Pattern, string[] Files, long Events) Set(string directory, string kind, long megabytes, long memberMegabytes)
    {
        var name = $"{kind}-{megabytes}mb";
        var members = (int)Math.Max(1, (megabytes + memberMegabytes - 1) / memberMegabytes);
        var files = new string[members];
        long events = 0;
        var fixture = Path.Combine("tests", "BackupXe.Tests", "Fixtures", "xel", "TestXel_0.xel");
        for (var i = 0; i < members; i++)
        {
            // Numbered as SQL Server numbers a rollover set's files, so the CLI reads them in this order.
            files[i] = Path.Combine(directory, string.Create(CultureInfo.InvariantCulture, $"{name}_0_{133000000000000000L + i}.xel"));
            var counted = files[i] + ".events";
            if (!File.Exists(counted))
            {
                var written = XelBenchmark.WriteFile(kind, Math.Min(memberMegabytes, megabytes - (i * memberMegabytes)), files[i], fixture, member: i)
                    ?? throw new ArgumentException($"xel-set: kind is wait-info or genuine, not {kind}");
                File.WriteAllText(counted, written.ToString(CultureInfo.InvariantCulture));
            }

            events += long.Parse(File.ReadAllText(counted), CultureInfo.InvariantCulture);
        }

        // A set kept from a build of this verb that wrote equal members would again measure one of them.
        var hashes = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var file in files)
        {
            using var stream = File.OpenRead(file);
            var hash = Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(stream));
            if (!hashes.TryAdd(hash, file))
            {
                throw new InvalidOperationException($"xel-set: {file} is a copy of {hashes[hash]}, which the CLI reads once; delete {directory} and run again.");
            }
        }

        return (Path.Combine(directory, $"{name}_0_*.xel"), files, events);
    }

    /// <summary>
    /// One command's medians. The speed against the bare read is the median of the pairs' wall-time ratios (bare over
    /// command); the CPU against it, the command's median CPU time over the bare read's, since the bare read's CPU
    /// time is a few hundredths of a second, near the resolution of the accounting (shown as "-" under it).
    /// </summary>
    private static string Row(string set, int files, double megabytes, long? events, string command, ProcessBenchmark.Measured run, ProcessBenchmark.Ratios? ratio, ProcessBenchmark.Measured? bare)
    {
        var measurable = run.CpuSeconds >= 0.01;
        var cpuRate = measurable ? (megabytes / run.CpuSeconds).ToString("F0", CultureInfo.InvariantCulture) : "-";
        var eventRate = measurable && events is { } count ? (count / run.CpuSeconds).ToString("N0", CultureInfo.InvariantCulture) : "-";
        var cpuAgainst = bare is null ? "1" : bare.CpuSeconds >= 0.01 ? (run.CpuSeconds / bare.CpuSeconds).ToString("F0", CultureInfo.InvariantCulture) + "x" : "-";
        return string.Create(CultureInfo.InvariantCulture,
            $"| {set} | {files} | {megabytes:F0} | {events?.ToString("N0", CultureInfo.InvariantCulture) ?? "-"} | {command} | {run.Seconds:F2} | {run.CpuSeconds:F2} | {megabytes / run.Seconds:F0} | {cpuRate} | {eventRate} | {run.PeakMegabytes:F0} | {(ratio is null ? "1" : $"{ratio.Wall:F2}x")} | {cpuAgainst} |");
    }
}
