using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// The speed guard that may fail CI: the instructions the native CLI executes for <c>analyze --format json</c> on
/// generated XE XML, ERRORLOG and .xel, counted by valgrind, against the counts recorded in docs/performance.md ("The speed
/// guard"). A count does not depend on the neighbours' load, so a tolerance far below the drops to catch holds; the
/// CPU ratios of <see cref="RatioGuard"/> spread as wide as the drops on the shared machine and only warn.
/// </summary>
/// <remarks>
/// The CLI runs with one processor (<c>DOTNET_PROCESSOR_COUNT=1</c>): nothing is read ahead, so no thread spins
/// waiting for another, whose instructions would follow the scheduler rather than the code. Cachegrind without its
/// cache simulation counts instructions only, the cheapest of valgrind's counting tools.
/// </remarks>
public static partial class InstructionGuard
{
    private static readonly RecordedTable Table = new("<!-- speed-guard-instructions:begin -->", "<!-- speed-guard-instructions:end -->");

    /// <summary>
    /// Smaller than the ratio guard's: under valgrind a native run takes about 25 times its CPU time. The .xel is the
    /// <c>xel-file wait-info</c> generator's, asked for in megabytes (16: 225,000 events).
    /// </summary>
    private static readonly (string Format, long Events)[] Inputs =
    [
        ("xe-xml", 20_000),
        ("errorlog", 150_000),
        ("xel", 16),
    ];

    /// <param name="cli">The native executable (without its .dbg beside it: valgrind 3.19 cannot read NativeAOT's).</param>
    /// <param name="document">docs/performance.md, whose instruction table holds the recorded counts and the tolerance.</param>
    /// <param name="runs">Counts per input; the largest is compared (they agree to a few parts in 10,000).</param>
    /// <param name="update">Write the measured counts into the table instead of checking them.</param>
    public static async Task<int> RunAsync(string cli, string document, int runs, bool update)
    {
        var text = await File.ReadAllTextAsync(document).ConfigureAwait(false);
        var (recorded, tolerance) = Read(text);
        if (!update && recorded.Count == 0)
        {
            await Console.Error.WriteLineAsync($"{document}: no instruction table between {Table.Begin} and {Table.End}").ConfigureAwait(false);
            return 2;
        }

        var directory = Directory.CreateTempSubdirectory("backupxe-instruction-guard-").FullName;
        var measured = new List<(string Format, long Events, long Max, long Min)>();
        try
        {
            cli = WithoutSymbols(cli, directory);
            foreach (var (format, events) in Inputs)
            {
                var path = Path.Combine(directory, $"{format}.{format switch { "xe-xml" => "xml", "xel" => "xel", _ => "log" }}");
                Generate(format, path, events);
                var counts = new List<long>();
                for (var run = 0; run < runs; run++)
                {
                    if (await CountAsync(cli, path).ConfigureAwait(false) is not { } count)
                    {
                        return 2;
                    }

                    counts.Add(count);
                }

                measured.Add((format, events, counts.Max(), counts.Min()));
                File.Delete(path);
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }

        if (update)
        {
            var stamp = DateTime.UtcNow.ToString("yyyy-MM-dd HH:mm 'UTC'", CultureInfo.InvariantCulture);
            var rows = measured.Select(m => string.Create(CultureInfo.InvariantCulture,
                $"| {m.Format} | {m.Events} | {m.Max} | {runs}, {(m.Max - m.Min) / (double)m.Max:P2} apart | {stamp} |"));
            var updated = Table.Replace(text, [
                "| input | asked of the generator (events; MB for xel) | instructions | runs, spread | taken |",
                "|---|---:|---:|---|---|",
                .. rows]);
            if (updated is null)
            {
                await Console.Error.WriteLineAsync($"{document}: no instruction table between {Table.Begin} and {Table.End} to update").ConfigureAwait(false);
                return 2;
            }

            await File.WriteAllTextAsync(document, updated, new UTF8Encoding(false)).ConfigureAwait(false);
            measured.ForEach(m => Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{m.Format}: {m.Max:N0} instructions recorded")));
            return 0;
        }

        var failed = false;
        foreach (var (format, _, count, min) in measured)
        {
            if (!recorded.TryGetValue(format, out var figure))
            {
                Console.WriteLine($"{format}: no recorded count; not checked");
                continue;
            }

            var ceiling = (long)(figure * (1 + tolerance));
            var verdict = count <= ceiling ? "ok" : "SLOWER";
            failed |= count > ceiling;
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{format}: analyze took {count:N0} instructions ({runs} run(s), {min:N0} to {count:N0}); recorded {figure:N0}, ceiling {ceiling:N0} (+{tolerance:P0}), {count / (double)figure:F3}x: {verdict}"));
        }

        return failed ? 1 : 0;
    }

    private static void Generate(string format, string path, long size)
    {
        if (format == "xel")
        {
            XelBenchmark.WriteFile("wait-info", size, path, Path.Combine("tests", "BackupXe.Tests", "Fixtures", "xel", "TestXel_0.xel"));
            return;
        }

        ProcessBenchmark.Generate(format, path, size);
    }

    /// <summary>The recorded count per input and the tolerance ("instruction tolerance: 5 %") from the guard's section.</summary>
    internal static (Dictionary<string, long> Recorded, double Tolerance) Read(string text)
    {
        var recorded = new Dictionary<string, long>(StringComparer.Ordinal);
        if (Table.Body(text) is { } body)
        {
            foreach (Match row in RowPattern().Matches(body))
            {
                recorded[row.Groups[1].Value] = long.Parse(row.Groups[2].Value, CultureInfo.InvariantCulture);
            }
        }

        var tolerance = TolerancePattern().Match(text) is { Success: true } stated
            ? double.Parse(stated.Groups[1].Value, CultureInfo.InvariantCulture) / 100
            : 0.05;
        return (recorded, tolerance);
    }

    // valgrind 3.19 gives up on the NativeAOT symbols file (backupxe.dbg) that a publish folder holds beside the
    // executable; the release archive has none. A copy of the executable and its libraries is run instead.
    private static string WithoutSymbols(string cli, string directory)
    {
        var folder = Path.GetDirectoryName(Path.GetFullPath(cli))!;
        if (Directory.GetFiles(folder, "*.dbg").Length == 0)
        {
            return cli;
        }

        var copy = Directory.CreateDirectory(Path.Combine(directory, "cli")).FullName;
        foreach (var file in Directory.GetFiles(folder, "*.so").Append(Path.GetFullPath(cli)))
        {
            File.Copy(file, Path.Combine(copy, Path.GetFileName(file)));
        }

        return Path.Combine(copy, Path.GetFileName(cli));
    }

    // One run under valgrind: the "I refs" total cachegrind prints, or null (with the reason) when it printed none.
    private static async Task<long?> CountAsync(string cli, string path)
    {
        var start = new ProcessStartInfo("valgrind") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in (string[])["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", cli, "analyze", path, "--format", "json"])
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["DOTNET_PROCESSOR_COUNT"] = "1";
        using var process = Process.Start(start)!;
        var output = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null);
        var errors = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().ConfigureAwait(false);
        await output.ConfigureAwait(false);
        var log = await errors.ConfigureAwait(false);
        if (process.ExitCode == 0 && RefsPattern().Match(log) is { Success: true } refs)
        {
            return long.Parse(refs.Groups[1].Value.Replace(",", string.Empty, StringComparison.Ordinal), CultureInfo.InvariantCulture);
        }

        await Console.Error.WriteLineAsync($"valgrind on {cli} exited {process.ExitCode} without a count:\n{log}").ConfigureAwait(false);
        return null;
    }

    [GeneratedRegex(@"^\| (xe-xml|errorlog|xel) \| [0-9]+ \| ([0-9]+) \|", RegexOptions.Multiline)]
    private static partial Regex RowPattern();

    [GeneratedRegex(@"instruction tolerance: ([0-9]+) %")]
    private static partial Regex TolerancePattern();

    [GeneratedRegex(@"I\s+refs:\s+([0-9,]+)")]
    private static partial Regex RefsPattern();
}
