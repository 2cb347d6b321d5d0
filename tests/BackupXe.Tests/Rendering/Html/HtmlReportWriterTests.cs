using System.Globalization;
using System.Security.Cryptography;
using System.Text.Json;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Rendering.Html;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Rendering.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Rendering.Html;

public sealed class HtmlReportWriterTests
{
    private static readonly string[] OperationSections = ["verdict", "remedies", "facts", "timeline", "rate", "waits", "memory", "files"];

    [Fact]
    public async Task Every_operation_has_every_section_and_the_summary_links_to_each()
    {
        // Given / When
        var (page, _) = await AnalyzeSamplesAsync();

        // Then
        var operations = page.All("section").Where(s => (string?)s.Attribute("data-section") == "operation").ToList();
        Assert.Equal(2, operations.Count);
        foreach (var operation in operations)
        {
            var sections = operation.Descendants().Select(e => (string?)e.Attribute("data-section")).Where(s => s is not null).ToList();
            Assert.Equal(OperationSections, sections);
        }

        var links = page.Section("summary").Descendants("a").Select(a => (string)a.Attribute("href")!).ToList();
        Assert.Equal(operations.Select(o => "#" + (string)o.Attribute("id")!), links);
        Assert.Equal(2, HtmlPage.Table(page.Section("summary"), "inputs").Descendants("tr").Count(r => r.Parent!.Name == "tbody"));
    }

    [Fact]
    public async Task Each_verdict_says_what_decided_it_and_what_would_change_it_as_the_console_does()
    {
        // Given / When
        var (page, json) = await AnalyzeSamplesAsync();

        // Then
        var operations = json.RootElement.GetProperty("operations").EnumerateArray().ToList();
        for (var i = 0; i < operations.Count; i++)
        {
            var verdict = operations[i].GetProperty("verdict");
            var expected = $"Decided by: {verdict.GetProperty("decidedBy").GetString()}. What would change it: {verdict.GetProperty("wouldChange").GetString()}";
            var said = page.Section($"op-{i + 1}").Descendants("p").Single(p => (string?)p.Attribute("class") == "decided-by");
            Assert.Equal(expected, said.Value);
        }
    }

    [Fact]
    public async Task Every_number_in_the_tables_equals_the_json_report()
    {
        // Given / When
        var (page, json) = await AnalyzeSamplesAsync();

        // Then: the summary
        var operations = json.RootElement.GetProperty("operations").EnumerateArray().ToList();
        var summary = HtmlPage.Table(page.Section("summary"), "operations");
        Assert.Equal(operations.Select(o => Raw(o.GetProperty("throughputMBps"))), HtmlPage.Column(summary, "throughputMBps"));
        Assert.Equal(operations.Select(o => Raw(o.GetProperty("durationSeconds"))), HtmlPage.Column(summary, "durationSeconds"));

        for (var i = 0; i < operations.Count; i++)
        {
            var op = operations[i];
            var section = page.Section($"op-{i + 1}");
            Assert.Equal(op.GetProperty("verdict").GetProperty("bottleneck").GetString(),
                (string?)section.Descendants("strong").First(s => s.Attribute("data-value") is not null).Attribute("data-value"));

            var phases = HtmlPage.Table(section, "phases");
            Assert.Equal(op.GetProperty("phases").EnumerateArray().Select(p => Raw(p.GetProperty("seconds"))), HtmlPage.Column(phases, "seconds"));

            var waits = op.GetProperty("waits").EnumerateArray().ToList();
            if (waits.Count > 0)
            {
                var table = HtmlPage.Table(section, "waits");
                foreach (var field in new[] { "count", "totalMs", "maxMs", "signalMs" })
                {
                    Assert.Equal(waits.Select(w => Raw(w.GetProperty(field))), HtmlPage.Column(table, field));
                }

                Assert.Equal(waits.Select(w => (w.GetProperty("totalMs").GetDouble() / w.GetProperty("count").GetDouble()).ToString("R", CultureInfo.InvariantCulture)), HtmlPage.Column(table, "averageMs"));
            }

            if (op.GetProperty("progress").ValueKind == JsonValueKind.Object)
            {
                // Each interval's rate is the bytes between two points of the JSON series over their time.
                var points = op.GetProperty("progress").GetProperty("points").EnumerateArray()
                    .Select(p => (At: p.GetProperty("at").GetDateTime(), Bytes: p.GetProperty("bytes").GetInt64())).ToList();
                var expected = points.Zip(points.Skip(1))
                    .Where(pair => pair.Second.At > pair.First.At)
                    .Select(pair => ((pair.Second.Bytes - pair.First.Bytes) / 1_048_576d / (pair.Second.At - pair.First.At).TotalSeconds).ToString("R", CultureInfo.InvariantCulture));
                Assert.Equal(expected, HtmlPage.Column(HtmlPage.Table(section, "rate"), "mbps"));
            }

            if (op.GetProperty("bufferConfig") is { ValueKind: JsonValueKind.Object } buffers)
            {
                var bytes = HtmlPage.Column(HtmlPage.Table(section, "memory"), "bytes");
                Assert.Equal((buffers.GetProperty("bufferCount").GetInt64() * buffers.GetProperty("maxTransferSizeBytes").GetInt64()).ToString(CultureInfo.InvariantCulture), bytes[0]);
                Assert.Contains(Raw(buffers.GetProperty("memoryLimitBytes")), bytes);
            }

            var files = HtmlPage.Table(section, "files");
            var expectedSeconds = op.GetProperty("files").EnumerateArray().Concat(op.GetProperty("zeroing").EnumerateArray()).Select(f => Raw(f.GetProperty("seconds")));
            Assert.Equal(expectedSeconds, HtmlPage.Column(files, "seconds"));
            Assert.Equal(op.GetProperty("zeroing").EnumerateArray().Select(z => Raw(z.GetProperty("pages"))), HtmlPage.Column(files, "pages"));
        }
    }

    [Fact]
    public async Task The_samples_give_the_charts_their_data_blocks_with_the_expected_series()
    {
        // Given / When
        var (page, _) = await AnalyzeSamplesAsync();

        // Then: the backup has all four charts; the restore's log has no waits, progress or buffer block.
        var backup = page.Section("op-1").Descendants("div").Where(d => d.Attribute("data-chart") is not null).ToList();
        Assert.Equal(["timeline", "rate", "waits", "memory"], backup.Select(c => (string)c.Attribute("data-chart")!));
        var data = page.Data["op-1-data"].RootElement;
        Assert.Equal(data.GetProperty("timeline").GetProperty("labels").GetArrayLength().ToString(CultureInfo.InvariantCulture), (string?)backup[0].Attribute("data-series"));
        Assert.All(backup, chart => Assert.False(string.IsNullOrEmpty((string?)chart.Attribute("aria-label"))));
        Assert.Equal(["timeline"], page.Section("op-2").Descendants("div").Where(d => d.Attribute("data-chart") is not null).Select(c => (string)c.Attribute("data-chart")!));
    }

    [Fact]
    public async Task The_memory_chart_sets_the_buffers_in_use_against_the_limit_and_the_budget()
    {
        // Given
        var file = Path.Combine(Path.GetTempPath(), $"backupxe-{Guid.NewGuid():N}.html");
        try
        {
            // When
            var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), "--format", "html", "--output", file, "--memory-budget-mb", "512");

            // Then: 7 x 1 MB in use, the server's 21 MB over 3 sets, its 16 GB limit, the 512 MB budget
            Assert.Equal(0, run.ExitCode);
            var page = HtmlPage.Parse(await File.ReadAllTextAsync(file));
            var table = HtmlPage.Table(page.Section("op-1"), "memory");
            Assert.Equal(["in use", "server total", "memory limit", "budget"], table.Descendants("tr").Select(r => (string?)r.Attribute("data-key")).Where(k => k is not null));
            Assert.Equal("536870912", HtmlPage.Column(table, "bytes")[^1]);
            Assert.Equal(4, page.Data["op-1-data"].RootElement.GetProperty("memory").GetProperty("megabytes").GetArrayLength());
            Assert.Equal(512d, page.Data["op-1-data"].RootElement.GetProperty("memory").GetProperty("megabytes")[3].GetDouble());
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public void Hostile_text_is_escaped_and_cannot_end_a_data_block()
    {
        // Given: every input-borne text tries to close its element and run script
        const string Attack = "</script><script>alert(1)</script><img src=x onerror=alert(2)>\"'&";
        var report = HostileReport(Attack);
        var output = new StringWriter();

        // When
        var writer = new HtmlReportWriter(output, "BackupXe analysis");
        writer.WriteOperation(report);
        writer.Finish([new InputReport(Attack, "xe-xml", 1, [new InputProblem("line 1", Attack)])]);
        var html = output.ToString();

        // Then: the markup parses as XML with no element the attack tried to add, and the texts read back intact
        var page = HtmlPage.Parse(html);
        Assert.DoesNotContain("<script>alert", html, StringComparison.Ordinal);
        Assert.DoesNotContain("<img", html, StringComparison.Ordinal);
        Assert.Empty(page.All("img"));
        Assert.Equal(2, page.Scripts.Count);
        Assert.Contains(page.All("h2"), h => h.Value.Contains(Attack, StringComparison.Ordinal));
        Assert.Contains(page.All("pre"), pre => pre.Value.Contains(Attack, StringComparison.Ordinal));
        Assert.Equal(Attack, page.Data["op-1-data"].RootElement.GetProperty("waits").GetProperty("types")[0].GetString());
        foreach (var block in page.Data.Keys)
        {
            Assert.DoesNotContain("<", System.Text.RegularExpressions.Regex.Match(html, $"id=\"{block}\">(.*?)</script>").Groups[1].Value, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task The_content_security_policy_allows_exactly_the_page_own_scripts_and_style()
    {
        // Given / When
        var (page, _) = await AnalyzeSamplesAsync();

        // Then
        var policy = (string)page.All("meta").Single(m => (string?)m.Attribute("http-equiv") == "Content-Security-Policy").Attribute("content")!;
        Assert.StartsWith("default-src 'none';", policy, StringComparison.Ordinal);
        var allowed = policy.Split(';').Single(d => d.Trim().StartsWith("script-src", StringComparison.Ordinal)).Trim().Split(' ').Skip(1).ToList();
        Assert.Equal(page.Scripts.Select(s => $"'sha256-{Convert.ToBase64String(SHA256.HashData(System.Text.Encoding.UTF8.GetBytes(s)))}'"), allowed);
        Assert.DoesNotContain("unsafe", policy, StringComparison.Ordinal);
        Assert.DoesNotContain("http:", page.Html.Replace("https://github.com/leeoniya/uPlot", "", StringComparison.Ordinal), StringComparison.Ordinal);
    }

    [Fact]
    public void Operations_are_written_as_they_are_given_and_the_summary_at_the_end()
    {
        // Given
        var output = new StringWriter();
        var writer = new HtmlReportWriter(output, "BackupXe analysis");

        // When
        writer.WriteOperation(HostileReport("Sales"));
        var afterFirst = output.ToString();
        writer.Finish([]);

        // Then
        Assert.Contains("id=\"op-1\"", afterFirst, StringComparison.Ordinal);
        Assert.DoesNotContain("id=\"summary\"", afterFirst, StringComparison.Ordinal);
        Assert.EndsWith("</html>\n", output.ToString(), StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => writer.WriteOperation(HostileReport("Sales")));
    }

    [Fact]
    public void The_vendored_chart_library_is_the_tarball_the_lock_file_pins()
    {
        // Given
        var folder = Path.Combine(Repository.Root, "src", "BackupXe.Core", "Rendering", "Html");
        using var lockFile = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "package-lock.json")));
        var package = lockFile.RootElement.GetProperty("packages").GetProperty("node_modules/uplot");

        // When
        var tarball = File.ReadAllBytes(Path.Combine(folder, "vendor", $"uplot-{package.GetProperty("version").GetString()}.tgz"));
        using var embedded = typeof(HtmlReportWriter).Assembly.GetManifestResourceStream("BackupXe.Html.uplot.tgz")!;
        using var copy = new MemoryStream();
        embedded.CopyTo(copy);

        // Then
        Assert.Equal(package.GetProperty("integrity").GetString(), "sha512-" + Convert.ToBase64String(SHA512.HashData(tarball)));
        Assert.Equal(tarball, copy.ToArray());
        Assert.Equal(HtmlReportWriter.ChartLibraryVersion, package.GetProperty("version").GetString());
    }

    /// <summary>The two samples analysed twice, as JSON and as HTML, through the CLI.</summary>
    internal static async Task<(HtmlPage Page, JsonDocument Json)> AnalyzeSamplesAsync()
    {
        var file = Path.Combine(Path.GetTempPath(), $"backupxe-{Guid.NewGuid():N}.html");
        try
        {
            string[] inputs = [CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log")];
            var json = await CliRun.RunAsync(["analyze", .. inputs, "--format", "json"]);
            var html = await CliRun.RunAsync(["analyze", .. inputs, "--format", "html", "--output", file]);
            Assert.Equal(0, html.ExitCode);
            return (HtmlPage.Parse(await File.ReadAllTextAsync(file)), JsonDocument.Parse(json.Output));
        }
        finally
        {
            File.Delete(file);
        }
    }

    internal static OperationReport HostileReport(string text)
    {
        var start = new DateTime(2024, 5, 1, 1, 0, 0, DateTimeKind.Utc);
        return new OperationReport
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = text,
            SessionId = 61,
            Start = start,
            End = start.AddSeconds(20),
            Status = OperationStatus.Failed,
            FailureReason = text,
            DurationSeconds = 20,
            BytesProcessed = 20L * 1_048_576,
            ThroughputMBps = 1,
            Devices = [new DeviceReport(text)],
            Files = [new FileReadReport(text, start.AddSeconds(1), start.AddSeconds(19), 18)],
            Phases = [new PhaseReport(text, start, start.AddSeconds(20), 20)],
            Waits = [new WaitReport(text, 3, 300, 200, 10)],
            Progress = new ProgressReport("percent", [new ProgressPointReport(start.AddSeconds(1), 0), new ProgressPointReport(start.AddSeconds(19), 20L * 1_048_576)]),
            BufferConfig = new BufferConfigReport { BufferCount = 7, MaxTransferSizeBytes = 1_048_576, MemoryLimitBytes = 1L << 34 },
            Verdict = new Verdict(Bottleneck.Unknown, Confidence.Low, [text]),
            Recommendations = [new Recommendation(text, text, text)],
        };
    }

    private static string Raw(JsonElement value) => value.ValueKind == JsonValueKind.Null ? "" : value.GetRawText();
}
