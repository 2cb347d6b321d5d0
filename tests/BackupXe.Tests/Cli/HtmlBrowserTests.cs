using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Rendering.Html;
using BackupXe.History;
using BackupXe.Tests.Rendering;
using BackupXe.Tests.Rendering.Html;
using BackupXe.Tests.Support;
using Microsoft.Playwright;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// The HTML reports opened in a real browser: Debian's Chromium, driven by Playwright (which cannot download a
/// browser here, so it is pointed at the system one). Offline: no console error, no request but the page itself,
/// every chart drawn with its series, nothing from the input executed. Screenshots go to TestResults/html-report/
/// for a person to look at. Without the browser these tests are skipped, visibly.
/// </summary>
public sealed class HtmlBrowserTests
{
    private static readonly string Browser = Environment.GetEnvironmentVariable("BACKUPXE_CHROMIUM") ?? "/usr/bin/chromium";

    private static readonly string[] BrowserArguments =
        ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

    [Fact]
    public async Task The_analyze_report_of_the_samples_renders_offline_with_every_chart()
    {
        var file = Artifact("analyze-samples.html");
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log"), "--format", "html", "--output", file);
        Assert.Equal(0, run.ExitCode);

        var light = await OpenAsync(file, "analyze-samples.png");
        var dark = await OpenAsync(file, "analyze-samples-dark.png", ColorScheme.Dark);
        var print = await OpenAsync(file, "analyze-samples-print.png", media: Media.Print);

        Assert.Equal([5, 5, 5], new[] { light.Charts, dark.Charts, print.Charts });
        Assert.NotEqual(light.Background, dark.Background);
        Assert.Equal("none", print.CopyButtonDisplay);
    }

    [Fact]
    public async Task The_watch_replay_report_renders_offline_with_every_chart()
    {
        var file = Artifact("watch-replay.html");
        var run = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("buffer-starved-backup.xml"), "--speed", "0", "--no-color", "--format", "html", "--output", file);
        Assert.Equal(0, run.ExitCode);

        var result = await OpenAsync(file, "watch-replay.png");

        Assert.Equal(4, result.Charts);
    }

    [Fact]
    public async Task The_history_report_renders_one_series_per_database_and_the_regressions()
    {
        // Given: two databases, the last Sales backup at 40% of its median
        var path = Path.Combine(Path.GetTempPath(), $"backupxe-history-{Guid.NewGuid():N}.db");
        var store = new SqliteHistoryStore(path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        await HtmlHistoryTests.SeedAsync(store);
        var file = Artifact("history.html");
        try
        {
            var run = await CliRun.RunAsync("history", "--path", path, "--format", "html", "--output", file);
            Assert.True(run.ExitCode == 0, run.Error);

            var result = await OpenAsync(file, "history.png");

            Assert.Equal(1, result.Charts);
        }
        finally
        {
            Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
            File.Delete(path);
        }
    }

    [Fact]
    public async Task A_report_built_from_hostile_names_runs_none_of_them()
    {
        // Given
        var file = Artifact("hostile.html");
        const string Attack = "</script><script>window.pwned=1;alert(1)</script><img src=x onerror=\"window.pwned=2\"><svg onload=\"window.pwned=3\">";
        await using (var output = new StreamWriter(file))
        {
            var writer = new HtmlReportWriter(output, "BackupXe analysis");
            writer.WriteOperation(HtmlReportWriterTests.HostileReport(Attack));
            writer.Finish([new InputReport(Attack, "xe-xml", 1, [])]);
        }

        // When / Then: OpenAsync fails on any dialog, request or console error
        var result = await OpenAsync(file, "hostile.png");

        Assert.Equal("undefined", result.Pwned);
        Assert.Equal(4, result.Charts);
    }

    private static async Task<BrowserResult> OpenAsync(string file, string screenshot, ColorScheme scheme = ColorScheme.Light, Media media = Media.Screen)
    {
        if (!File.Exists(Browser))
        {
            Skipped.Because($"no browser at {Browser}", "install Debian's chromium package (.ci/run does, as root) or set BACKUPXE_CHROMIUM to a Chromium executable");
        }

        using var playwright = await Playwright.CreateAsync();
        var profile = Directory.CreateTempSubdirectory("backupxe-chromium-");
        try
        {
            await using var context = await playwright.Chromium.LaunchPersistentContextAsync(profile.FullName, new BrowserTypeLaunchPersistentContextOptions
            {
                ExecutablePath = Browser,
                Headless = true,
                Args = BrowserArguments,
                ViewportSize = new ViewportSize { Width = 1280, Height = 900 },
                ColorScheme = scheme,
            });
            var page = await context.NewPageAsync();
            await page.EmulateMediaAsync(new PageEmulateMediaOptions { Media = media, ColorScheme = scheme });
            var problems = new List<string>();
            var url = new Uri(file).AbsoluteUri;
            page.Console += (_, message) =>
            {
                if (message.Type is "error" or "warning")
                {
                    problems.Add($"console {message.Type}: {message.Text}");
                }
            };
            page.PageError += (_, error) => problems.Add("page error: " + error);
            page.Dialog += async (_, dialog) =>
            {
                problems.Add("dialog: " + dialog.Message);
                await dialog.DismissAsync();
            };
            page.Request += (_, request) =>
            {
                if (request.Url != url)
                {
                    problems.Add("request: " + request.Url);
                }
            };

            await page.GotoAsync(url, new PageGotoOptions { WaitUntil = WaitUntilState.Load, Timeout = 30_000 });
            var charts = await page.Locator("[data-chart]").CountAsync();
            for (var i = 0; i < charts; i++)
            {
                var chart = page.Locator("[data-chart]").Nth(i);
                var expected = await chart.GetAttributeAsync("data-series");
                Assert.Equal(expected, await chart.GetAttributeAsync("data-rendered-series"));
                // Axes, grid, labels and phase shading are grey; only the series are drawn in colour.
                var coloured = await chart.EvaluateAsync<int>(
                    @"el => { const c = el.querySelector('canvas'); if (!c || !c.width || !c.height) return 0;
                              const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
                              for (let i = 0; i < d.length; i += 4) {
                                if (d[i + 3] > 200 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) n++; }
                              return n; }");
                Assert.True(coloured > 200, $"chart {i} ({await chart.GetAttributeAsync("data-chart")}) drew {coloured} coloured pixels");
            }

            var pwned = await page.EvaluateAsync<string>("() => typeof window.pwned");
            var background = await page.EvaluateAsync<string>("() => getComputedStyle(document.body).backgroundColor");
            var copyButton = await page.EvaluateAsync<string>("() => { const b = document.querySelector('button.copy'); return b ? getComputedStyle(b).display : ''; }");
            await page.ScreenshotAsync(new PageScreenshotOptions { Path = Artifact(screenshot), FullPage = true });
            Assert.Empty(problems);
            return new BrowserResult(charts, pwned, background, copyButton);
        }
        finally
        {
            profile.Delete(recursive: true);
        }
    }

    /// <summary>TestResults/html-report/ at the repository root (gitignored), kept after the run.</summary>
    private static string Artifact(string name)
    {
        var folder = Path.Combine(Path.GetDirectoryName(Path.GetDirectoryName(CliRun.Sample("x")))!, "TestResults", "html-report");
        Directory.CreateDirectory(folder);
        return Path.Combine(folder, name);
    }

    private sealed record BrowserResult(int Charts, string Pwned, string Background, string CopyButtonDisplay);
}
