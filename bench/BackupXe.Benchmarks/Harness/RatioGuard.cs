using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// The check that a text reader has not lost speed against the bare pass over the same bytes: <c>analyze --format json</c>
/// of a built CLI and the bare pass (<c>bare-xml</c>, <c>bare-lines</c>) on generated XE XML and ERRORLOG, in pairs of
/// whole processes whose order alternates, compared by the median of the per-pair CPU ratios with the figure recorded in
/// docs/performance.md ("The speed guard"). A ratio taken within one run moves far less with the machine's load than
/// either time; CPU rather than wall time because a loaded machine stretches wall times by whole multiples.
/// </summary>
public static partial class RatioGuard
{
    private static readonly RecordedTable Table = new("<!-- speed-guard:begin -->", "<!-- speed-guard:end -->");

    /// <summary>The inputs: small enough to keep the check to seconds, large enough that start-up stays a small part.</summary>
    private static readonly (string Format, long Events, string Bare)[] Inputs =
    [
        ("xe-xml", 100_000, "bare-xml"),
        ("errorlog", 500_000, "bare-lines"),
    ];

    /// <param name="cli">The CLI to measure (the native executable, as users install it).</param>
    /// <param name="document">docs/performance.md: its guard table holds the recorded ratios and the tolerance.</param>
    /// <param name="pairs">Pairs per input; the median of their ratios is compared.</param>
    /// <param name="update">Write the measured ratios into the table instead of checking them.</param>
    public static async Task<int> RunAsync(string cli, string document, int pairs, bool update)
    {
        var text = await File.ReadAllTextAsync(document).ConfigureAwait(false);
        var (recorded, tolerance) = Read(text);
        if (!update && recorded.Count == 0)
        {
            await Console.Error.WriteLineAsync($"{document}: no speed-guard table between {Table.Begin} and {Table.End}").ConfigureAwait(false);
            return 2;
        }

        var directory = Directory.CreateTempSubdirectory("backupxe-speed-guard-").FullName;
        var measured = new List<(string Format, double Ratio, double Min, double Max)>();
        try
        {
            foreach (var (format, events, bare) in Inputs)
            {
                var path = Path.Combine(directory, $"{format}.{(format == "xe-xml" ? "xml" : "log")}");
                ProcessBenchmark.Generate(format, path, events);
                var (ratio, _, _, cpuRatios) = await ProcessBenchmark.PairsWithRatiosAsync(
                    pairs, ProcessBenchmark.Self(bare, path), ProcessBenchmark.Cli(cli, "analyze", path, "--format", "json")).ConfigureAwait(false);
                measured.Add((format, ratio.Cpu, cpuRatios.Min(), cpuRatios.Max()));
                File.Delete(path);
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }

        var load = File.Exists("/proc/loadavg") ? (await File.ReadAllTextAsync("/proc/loadavg").ConfigureAwait(false)).Split(' ')[0] : "?";
        if (update)
        {
            var stamp = DateTime.UtcNow.ToString("yyyy-MM-dd HH:mm 'UTC'", CultureInfo.InvariantCulture);
            var rows = measured.Select(m => string.Create(CultureInfo.InvariantCulture,
                $"| {m.Format} | {m.Ratio:F2}x | {m.Min:F2}-{m.Max:F2}x | {pairs} | {stamp}, load {load} |"));
            var updated = Table.Replace(text, [
                "| input | analyze speed vs bare pass, CPU (median of pairs) | range of the pairs | pairs | taken |",
                "|---|---:|---:|---:|---|",
                .. rows]);
            if (updated is null)
            {
                await Console.Error.WriteLineAsync($"{document}: no speed-guard table between {Table.Begin} and {Table.End} to update").ConfigureAwait(false);
                return 2;
            }

            await File.WriteAllTextAsync(document, updated, new UTF8Encoding(false)).ConfigureAwait(false);
            measured.ForEach(m => Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{m.Format}: {m.Ratio:F2}x recorded")));
            return 0;
        }

        var failed = false;
        foreach (var (format, ratio, min, max) in measured)
        {
            if (!recorded.TryGetValue(format, out var figure))
            {
                Console.WriteLine($"{format}: no recorded figure; not checked");
                continue;
            }

            var floor = figure * (1 - tolerance);
            var verdict = ratio >= floor ? "ok" : "SLOWER";
            failed |= ratio < floor;
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{format}: analyze at {ratio:F2}x the bare pass's speed (CPU, median of {pairs} pairs, {min:F2}-{max:F2}x; load {load}); recorded {figure:F2}x, floor {floor:F2}x: {verdict}"));
        }

        return failed ? 1 : 0;
    }

    /// <summary>The recorded ratio per input and the tolerance ("a drop of more than 20 %") from the guard's section.</summary>
    internal static (Dictionary<string, double> Recorded, double Tolerance) Read(string text)
    {
        var recorded = new Dictionary<string, double>(StringComparer.Ordinal);
        if (Table.Body(text) is { } body)
        {
            foreach (Match row in RowPattern().Matches(body))
            {
                recorded[row.Groups[1].Value] = double.Parse(row.Groups[2].Value, CultureInfo.InvariantCulture);
            }
        }

        var tolerance = TolerancePattern().Match(text) is { Success: true } stated
            ? double.Parse(stated.Groups[1].Value, CultureInfo.InvariantCulture) / 100
            : 0.2;
        return (recorded, tolerance);
    }

    [GeneratedRegex(@"^\| (xe-xml|errorlog) \| ([0-9.]+)x \|", RegexOptions.Multiline)]
    private static partial Regex RowPattern();

    [GeneratedRegex(@"speed-guard tolerance: ([0-9]+) %")]
    private static partial Regex TolerancePattern();
}
