using System.Diagnostics;
using System.Globalization;
using System.Xml;
using BackupXe.Benchmarks.Synthetic;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// What a user runs: the CLI as a whole process (<c>analyze --format json</c> to /dev/null) against bare passes
/// over the same bytes, each also a whole process of this harness, in the same run so that a shared machine
/// slows both alike. Pairs alternate which side goes first; the table shows medians and the median of the
/// per-pair ratios. Peak memory is the child's maximum resident set from <c>/usr/bin/time</c>.
/// </summary>
public static class ProcessBenchmark
{
    public static async Task<int> RunAsync(string cli, long baseEvents, int pairs, double[] factors, string? keepDirectory, int[] concurrency)
    {
        var directory = keepDirectory ?? Directory.CreateTempSubdirectory("backupxe-process-").FullName;
        Directory.CreateDirectory(directory);
        var rows = new List<string>();
        try
        {
            // BACKUPXE_BENCH_FORMATS=errorlog (or xe-xml) limits a run to one format.
            var formats = Environment.GetEnvironmentVariable("BACKUPXE_BENCH_FORMATS")?.Split(',') ?? ["xe-xml", "errorlog"];
            var unknown = formats.Where(f => f is not ("xe-xml" or "errorlog")).ToList();
            if (unknown.Count > 0)
            {
                // "xml" once silently measured an ERRORLOG named xml-1000000.log (seen 2026-11-22).
                await Console.Error.WriteLineAsync($"BACKUPXE_BENCH_FORMATS: unknown format(s) {string.Join(", ", unknown)}; use xe-xml and/or errorlog.").ConfigureAwait(false);
                return 2;
            }

            if (cli == "publish")
            {
                cli = await PublishAsync(Path.Combine(directory, "published-cli")).ConfigureAwait(false);
            }

            foreach (var format in formats)
            {
                foreach (var factor in factors)
                {
                    var events = (long)(baseEvents * factor);
                    var path = Path.Combine(directory, $"{format}-{events}.{(format == "xe-xml" ? "xml" : "log")}");
                    if (!File.Exists(path))
                    {
                        Generate(format, path, events);
                    }

                    var bare = format == "xe-xml" ? "bare-xml" : "bare-lines";
                    var (ratio, bareRun, cliRun) = await PairsAsync(pairs, Self(bare, path), Cli(cli, "analyze", path, "--format", "json")).ConfigureAwait(false);
                    rows.Add(Row($"{format} {factor.ToString(CultureInfo.InvariantCulture)}x ({events:N0} events, {SizeInMegabytes(path):N0} MB)", $"bare {bare}", bareRun, "analyze --format json", cliRun, ratio));
                    if (factor == 1)
                    {
                        var (watchRatio, analyzeRun, watchRun) = await PairsAsync(pairs, Cli(cli, "analyze", path, "--format", "json"), Cli(cli, "watch", "--replay", path, "--speed", "0", "--format", "json")).ConfigureAwait(false);
                        rows.Add(Row($"{format} 1x", "analyze --format json", analyzeRun, "watch --replay --speed 0 --format json", watchRun, watchRatio));
                    }
                }
            }

            foreach (var concurrent in concurrency)
            {
                var with = Path.Combine(directory, $"concurrent-{concurrent}-session.xml");
                var without = Path.Combine(directory, $"concurrent-{concurrent}-nosession.xml");
                if (!File.Exists(with))
                {
                    XeXmlTraceWriter.Write(with, Concurrent(concurrent), withSessionId: true);
                    XeXmlTraceWriter.Write(without, Concurrent(concurrent), withSessionId: false);
                }

                var (ratio, withRun, withoutRun) = await PairsAsync(pairs, Cli(cli, "analyze", with, "--format", "json"), Cli(cli, "analyze", without, "--format", "json")).ConfigureAwait(false);
                var verdicts = await CompareVerdictsAsync(cli, with, without, directory).ConfigureAwait(false);
                rows.Add(Row($"{concurrent} concurrent backups (XE XML)", "with session_id", withRun, "without session_id", withoutRun, ratio, verdicts));
            }
        }
        finally
        {
            if (keepDirectory is null)
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        Console.WriteLine("| input | A | A wall s | A CPU s | A peak MB | B | B wall s | B CPU s | B peak MB | B speed vs A, wall | B speed vs A, CPU | verdicts |");
        Console.WriteLine("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|");
        rows.ForEach(Console.WriteLine);
        return 0;
    }

    /// <summary>Verdicts without session_id against those with it, by database: same, "Ambiguous:" unknown, or other (wrong).</summary>
    private static async Task<string> CompareVerdictsAsync(string cli, string with, string without, string directory)
    {
        async Task<Dictionary<string, (string Bottleneck, string Evidence)>> VerdictsAsync(string input)
        {
            var output = Path.Combine(directory, Path.GetFileNameWithoutExtension(input) + ".json");
            var child = Cli(cli, "analyze", input, "--format", "json", "--output", output);
            await MeasureAsync(child).ConfigureAwait(false);
            using var json = System.Text.Json.JsonDocument.Parse(await File.ReadAllTextAsync(output).ConfigureAwait(false));
            File.Delete(output);
            return json.RootElement.GetProperty("operations").EnumerateArray().ToDictionary(
                op => op.GetProperty("database").GetString()!,
                op => (op.GetProperty("verdict").GetProperty("bottleneck").GetString()!, op.GetProperty("verdict").GetProperty("evidence")[0].GetString()!));
        }

        var expected = await VerdictsAsync(with).ConfigureAwait(false);
        var actual = await VerdictsAsync(without).ConfigureAwait(false);
        var same = actual.Count(a => expected.TryGetValue(a.Key, out var e) && e.Bottleneck == a.Value.Bottleneck);
        var ambiguous = actual.Count(a => a.Value.Bottleneck == "unknown" && a.Value.Evidence.StartsWith("Ambiguous:", StringComparison.Ordinal)
            && !(expected.TryGetValue(a.Key, out var e) && e.Bottleneck == "unknown"));
        var withSession = string.Join(", ", expected.Values.GroupBy(v => v.Bottleneck).Select(g => $"{g.Key} {g.Count()}"));
        return $"with: {withSession}; without: {same} same, {ambiguous} ambiguous, {actual.Count - same - ambiguous} other, {expected.Count - actual.Count} missing";
    }

    /// <summary>
    /// What users install: the CLI published for this machine's runtime and self-contained, which the project compiles
    /// ahead of time into one native executable (docs/installation.md). Returns its path.
    /// </summary>
    internal static async Task<string> PublishAsync(string output)
    {
        var repository = AppContext.BaseDirectory;
        while (!File.Exists(Path.Combine(repository, "BackupXe.sln")))
        {
            repository = Path.GetDirectoryName(repository.TrimEnd(Path.DirectorySeparatorChar))
                ?? throw new InvalidOperationException("publish: BackupXe.sln not found above the harness; pass the CLI's path instead");
        }

        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in (string[])["publish", Path.Combine(repository, "src", "BackupXe.Cli"), "-c", "Release",
                     "-r", System.Runtime.InteropServices.RuntimeInformation.RuntimeIdentifier, "--self-contained", "true", "-o", output])
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var log = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().ConfigureAwait(false);
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"dotnet publish exited {process.ExitCode}: {await log.ConfigureAwait(false)}{await errors.ConfigureAwait(false)}");
        }

        var launcher = Path.Combine(output, OperatingSystem.IsWindows() ? "backupxe.exe" : "backupxe");
        Console.Error.WriteLine($"measuring the published CLI {launcher}");
        return launcher;
    }

    /// <summary>A bare pass: every XML value read, or every line read, and nothing else.</summary>
    public static int Bare(string verb, string path)
    {
        long total = 0;
        if (verb == "bare-xml")
        {
            using var reader = XmlReader.Create(path, new XmlReaderSettings { IgnoreWhitespace = true, DtdProcessing = DtdProcessing.Prohibit });
            while (reader.Read())
            {
                total += reader.Value.Length;
                while (reader.MoveToNextAttribute())
                {
                    total += reader.Value.Length;
                }
            }
        }
        else
        {
            using var lines = new StreamReader(path, detectEncodingFromByteOrderMarks: true);
            while (lines.ReadLine() is { } line)
            {
                total += line.Length;
            }
        }

        Console.WriteLine(total);
        return 0;
    }

    internal sealed record Child(string File, string[] Arguments);

    /// <summary>Wall time, CPU time (user + system: on a shared machine the steadier of the two), peak resident set.</summary>
    internal sealed record Measured(double Seconds, double CpuSeconds, double PeakMegabytes);

    internal static Child Self(string verb, string path)
    {
        var process = Environment.ProcessPath!;
        return Path.GetFileNameWithoutExtension(process) == "dotnet"
            ? new Child(process, [typeof(ProcessBenchmark).Assembly.Location, verb, path])
            : new Child(process, [verb, path]);
    }

    internal static Child Cli(string cli, params string[] arguments)
        => cli.EndsWith(".dll", StringComparison.Ordinal) ? new Child("dotnet", [cli, .. arguments]) : new Child(cli, arguments);

    internal static async Task<(Ratios Ratio, Measured A, Measured B)> PairsAsync(int pairs, Child a, Child b)
    {
        var (ratio, aRun, bRun, _) = await PairsWithRatiosAsync(pairs, a, b).ConfigureAwait(false);
        return (ratio, aRun, bRun);
    }

    /// <summary>As <see cref="PairsAsync"/>, with each pair's CPU ratio (A over B) besides the medians.</summary>
    internal static async Task<(Ratios Ratio, Measured A, Measured B, IReadOnlyList<double> CpuRatios)> PairsWithRatiosAsync(int pairs, Child a, Child b)
    {
        await MeasureAsync(a).ConfigureAwait(false); // warm the file cache and the runtime's own files
        var ratios = new List<double>();
        var cpuRatios = new List<double>();
        var aRuns = new List<Measured>();
        var bRuns = new List<Measured>();
        for (var i = 0; i < pairs; i++)
        {
            Measured ra, rb;
            if (i % 2 == 0)
            {
                ra = await MeasureAsync(a).ConfigureAwait(false);
                rb = await MeasureAsync(b).ConfigureAwait(false);
            }
            else
            {
                rb = await MeasureAsync(b).ConfigureAwait(false);
                ra = await MeasureAsync(a).ConfigureAwait(false);
            }

            aRuns.Add(ra);
            bRuns.Add(rb);
            ratios.Add(ra.Seconds / rb.Seconds);
            cpuRatios.Add(ra.CpuSeconds / rb.CpuSeconds);
            Console.Error.WriteLine($"  {string.Join(' ', a.Arguments.Skip(1))}: {ra} | {string.Join(' ', b.Arguments.Skip(1))}: {rb}");
        }

        return (new Ratios(Median(ratios), Median(cpuRatios)), Median(aRuns), Median(bRuns), cpuRatios);
    }

    internal sealed record Ratios(double Wall, double Cpu);

    private static Measured Median(List<Measured> runs)
        => new(Median(runs.Select(r => r.Seconds)), Median(runs.Select(r => r.CpuSeconds)), Median(runs.Select(r => r.PeakMegabytes)));

    private static async Task<Measured> MeasureAsync(Child child)
    {
        var report = Path.GetTempFileName();
        try
        {
            var start = new ProcessStartInfo("/usr/bin/time") { RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (var argument in (string[])["-f", "%U %S %M", "-o", report, child.File, .. child.Arguments])
            {
                start.ArgumentList.Add(argument);
            }

            var clock = Stopwatch.StartNew();
            using var process = Process.Start(start)!;
            var drainOut = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null);
            var drainErr = process.StandardError.ReadToEndAsync();
            await process.WaitForExitAsync().ConfigureAwait(false);
            clock.Stop();
            await drainOut.ConfigureAwait(false);
            var errors = await drainErr.ConfigureAwait(false);
            if (process.ExitCode != 0)
            {
                throw new InvalidOperationException($"{child.File} {string.Join(' ', child.Arguments)} exited {process.ExitCode}: {errors}");
            }

            var fields = (await File.ReadAllLinesAsync(report).ConfigureAwait(false)).Last(l => l.Length > 0).Split(' ');
            var cpu = double.Parse(fields[0], CultureInfo.InvariantCulture) + double.Parse(fields[1], CultureInfo.InvariantCulture);
            return new Measured(clock.Elapsed.TotalSeconds, cpu, long.Parse(fields[2], CultureInfo.InvariantCulture) / 1024.0);
        }
        finally
        {
            File.Delete(report);
        }
    }

    private static string Row(string input, string aName, Measured a, string bName, Measured b, Ratios ratio, string note = "")
        => string.Create(CultureInfo.InvariantCulture,
            $"| {input} | {aName} | {a.Seconds:F2} | {a.CpuSeconds:F2} | {a.PeakMegabytes:F0} | {bName} | {b.Seconds:F2} | {b.CpuSeconds:F2} | {b.PeakMegabytes:F0} | {ratio.Wall:F2}x | {ratio.Cpu:F2}x | {note} |");

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
    }

    internal static void Generate(string format, string path, long targetEvents)
    {
        var perBackup = format == "xe-xml" ? 7_150 : 149;
        var backups = (int)Math.Max(1, targetEvents / perBackup);
        var records = Enumerable.Range(0, backups).SelectMany(Backup);
        _ = format == "xe-xml" ? XeXmlTraceWriter.Write(path, records) : ErrorlogTraceWriter.Write(path, records);
    }

    private static IEnumerable<TraceRecord> Backup(int index)
    {
        var start = new DateTime(2024, 6, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds(30.0 * index);
        var database = "Db" + (index % 97).ToString("D2", CultureInfo.InvariantCulture);
        return Scenarios.BufferStarvedBackup(start, 51 + (index % 200), database, $@"\\backup01\sql\{database}_FULL_{index:D5}.bak", seed: 1000 + index);
    }

    /// <summary>
    /// <paramref name="count"/> backups running at once (a server-wide maintenance job), one spid and database
    /// each, started 10 ms apart; every 20th wait kept, 20 times as long, so that the input stays near 500
    /// events a backup while the wait time per backup stays that of the scenario.
    /// </summary>
    private static IEnumerable<TraceRecord> Concurrent(int count)
    {
        var start = new DateTime(2024, 7, 1, 1, 0, 0, DateTimeKind.Utc);
        var records = new List<TraceRecord>();
        for (var i = 0; i < count; i++)
        {
            var database = "Par" + i.ToString("D4", CultureInfo.InvariantCulture);
            var waits = 0;
            records.AddRange(Scenarios.BufferStarvedBackup(start.AddMilliseconds(10 * i), 100 + i, database, $@"\\backup01\sql\{database}.bak", seed: i)
                .Where(r => r is not WaitRecord || waits++ % 20 == 0)
                .Select(r => r is WaitRecord w ? w with { DurationMs = w.DurationMs * 20 } : r));
        }

        return records.OrderBy(r => r.At);
    }

    // An input linked in from elsewhere (to reuse a generated file) is measured by what it points to, not the link.
    private static double SizeInMegabytes(string path)
    {
        var file = new FileInfo(path);
        return ((file.ResolveLinkTarget(returnFinalTarget: true) as FileInfo) ?? file).Length / 1_048_576.0;
    }
}
