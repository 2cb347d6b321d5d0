using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Analysis;
using BackupXe.Core.Baselines;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Rendering.Html;
using BackupXe.Sources;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe watch</c>: a replayed capture or a live server through the analysis session, each operation
/// shown on <paramref name="console"/> as it ends; with <c>--start-session</c>, the capture session made for the
/// watch and removed after it.
/// </summary>
/// <param name="time">The clock a replay is paced by and the quiet ticks are measured on: null for the system's.</param>
internal sealed class WatchRun(CliConsole console, TimeProvider? time = null)
{
    // Each read serializes the whole target to XML on the server: often enough to keep up with a 1,000-event buffer
    // during a backup, not so often that the reads themselves cost (docs/live.md).
    private static readonly TimeSpan RingBufferPollInterval = TimeSpan.FromSeconds(2);

    public async Task<int> RunAsync(WatchSettings settings, CancellationToken cancellationToken)
    {
        if (settings.Replay is null && settings.Connection.Server is null)
        {
            await console.Error.WriteLineAsync("backupxe: watch needs --server S (a live server) or --replay FILE (a capture).");
            return ExitCodes.NothingUsable;
        }

        var htmlPath = settings.Format == "html" ? settings.Output : null;
        if (settings.Format == "html" && htmlPath is null)
        {
            await console.Error.WriteLineAsync("backupxe: --format html writes a file while the console shows progress: name it with --output FILE.html.");
            return ExitCodes.NothingUsable;
        }

        if (settings.Replay is { } replayPath)
        {
            var source = ReplayEventSource.Play(InputSources.Open(replayPath), settings.Speed, time ?? TimeProvider.System);
            // A paced replay ticks as a live server does, at its own speed, so phases without messages show their time.
            var pace = settings.Speed;
            var paced = pace > 0 && !double.IsPositiveInfinity(pace);
            return await WatchAsync(settings, source, htmlPath, $"{replayPath}: ", paced ? AnalysisOptions.LiveQuietInterval : null, null, cancellationToken, paced ? pace : 1);
        }

        var session = new CaptureSessionSettings(settings.SessionName);
        return await ServerCall.RunAsync(console, settings.Connection, session, async factory =>
        {
            if (!settings.StartSession)
            {
                return await WatchServerAsync(settings, factory, session, htmlPath, cancellationToken);
            }

            var temporary = new WatchCaptureSession(factory, session);
            // The watch's first connection: retried like every later one, each wait a line.
            var (started, problems) = await new TransientRetry(observer: new WatchConnectionLines(console.Error, factory.Settings.Server), time: time)
                .RunAsync(temporary.StartAsync, cancellationToken);
            var name = factory.Settings.Server;
            if (started == WatchSessionStart.Refused)
            {
                await console.Error.WriteLineAsync($"backupxe: {name}: nothing was created.");
                foreach (var problem in problems)
                {
                    await console.Error.WriteLineAsync($"backupxe: {problem.Message}");
                }

                return ExitCodes.NothingUsable;
            }

            await console.Error.WriteLineAsync(started == WatchSessionStart.Created
                ? $"backupxe: {name}: session {session.SessionName} created and started for this watch (STARTUP_STATE OFF); it is stopped and dropped when the watch ends."
                : $"backupxe: {name}: session {session.SessionName} was already running: read, and left as it is.");
            var exit = ExitCodes.NothingUsable;
            try
            {
                exit = await WatchServerAsync(settings, factory, session, htmlPath, cancellationToken);
            }
            finally
            {
                exit = await StopAsync(temporary, name, exit);
            }

            return exit;
        }, creates: settings.StartSession);
    }

    private async Task<int> WatchServerAsync(WatchSettings settings, SqlConnectionFactory factory, CaptureSessionSettings session, string? htmlPath, CancellationToken cancellationToken)
    {
        var lines = new WatchConnectionLines(console.Error, factory.Settings.Server);
        var live = LiveSources.Open(new LiveSourceSettings(factory, session)
        {
            Transport = settings.Transport,
            TailOptions = settings.Transport == LiveTransport.RingBuffer ? new EventFileTailOptions { PollInterval = RingBufferPollInterval } : new EventFileTailOptions(),
            Observer = lines,
            Time = time,
        });
        var requests = new WatchRequests(factory, session, settings.PollRequests, console.Error, time ?? TimeProvider.System, lines);
        try
        {
            return await WatchAsync(settings, live, htmlPath, string.Empty, AnalysisOptions.LiveQuietInterval, requests, cancellationToken);
        }
        // Ctrl-C is how a live watch ends: every operation that ended was already shown.
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return ExitCodes.Success;
        }
    }

    // After Ctrl-C too: the token is spent, and leaving the session running is what --start-session promises not to do.
    private async Task<int> StopAsync(WatchCaptureSession temporary, string server, int exit)
    {
        if (!temporary.Created)
        {
            return exit;
        }

        var name = temporary.Settings.SessionName;
        try
        {
            var stopped = await temporary.StopAsync(CancellationToken.None);
            if (stopped is { After.Exists: false })
            {
                await console.Error.WriteLineAsync($"backupxe: {server}: session {name} stopped and dropped; its .xel files stay on the server's disk.");
                return exit;
            }

            foreach (var problem in stopped?.Problems ?? [])
            {
                await console.Error.WriteLineAsync($"backupxe: {problem.Message}");
            }
        }
        catch (Exception failure) when (failure is not OutOfMemoryException)
        {
            await console.Error.WriteLineAsync($"backupxe: {server}: {SqlFailureText.Describe(failure)}");
        }

        await console.Error.WriteLineAsync($"backupxe: {server}: session {name} is still on the server: remove it with backupxe session uninstall --server {server} --session-name {SessionName.Argument(name)}.");
        return ExitCodes.NothingUsable;
    }

    private async Task<int> WatchAsync(WatchSettings settings, ITraceEventSource source, string? htmlPath, string problemPrefix, TimeSpan? quietInterval, WatchRequests? requests, CancellationToken cancellationToken, double clockRate = 1)
    {
        var json = settings.Format == "json";
        var renderer = CommonOptions.ConsoleRenderer(console, verbose: false, settings.NoColor);
        await using var htmlFile = htmlPath is null ? null : new StreamWriter(htmlPath, append: false);
        var html = htmlFile is null ? null : new HtmlReportWriter(htmlFile, "BackupXe watch", settings.MemoryBudgetBytes);
        // JSON Lines go out as UTF-8 bytes, after whatever the console holds as text.
        await using var jsonOutput = json ? new ReportOutput(null, console) : null;
        using var jsonLines = jsonOutput is null ? null : new JsonLinesWriter(jsonOutput.Bytes);
        var (past, historyError) = await HistoryOptions.LoadAsync(settings.History, console.Error, cancellationToken);
        if (historyError is not null)
        {
            await console.Error.WriteLineAsync(historyError);
            return ExitCodes.NothingUsable;
        }

        var view = new WatchView(
            console.Out, renderer, settings.Databases, jsonLines, html is null ? null : html.WriteOperation,
            inPlace: !json && !console.IsOutputRedirected, width: Terminal.Width(console, toFile: false))
        {
            Eta = past is null ? null : new BaselineEta(past),
        };
        var diagnosis = new DiagnosisSettings { MemoryBudgetBytes = settings.MemoryBudgetBytes, StallAfter = settings.StallAfter };

        using var compared = past is null ? null : new BaselineComparingStream(view, past);
        AnalysisFindings findings;
        if (requests is null)
        {
            findings = await AnalyseAsync(source, view, diagnosis, quietInterval, clockRate, compared, cancellationToken);
        }
        else
        {
            // Backups already running show first, from the DMV; their events then take over (WatchView ties them).
            await requests.ShowAtStartAsync(view, cancellationToken);
            using var polling = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            var poll = requests.PollAsync(view, polling.Token);
            try
            {
                findings = await AnalyseAsync(source, view, diagnosis, quietInterval, 1, compared, cancellationToken);
            }
            finally
            {
                await polling.CancelAsync();
                await poll;
            }
        }

        html?.Finish(findings.Inputs);

        foreach (var problem in findings.Inputs.SelectMany(input => input.Problems))
        {
            await console.Error.WriteLineAsync(TerminalText.Line($"backupxe: {problemPrefix}{problem.Location}: {problem.Message}"));
        }

        return ExitCodes.For(findings);
    }

    /// <summary>
    /// The analysis session with the view attached: each diagnosis as it ends, and, for the console only,
    /// progress after each trace message (JSON Lines show no progress, so no snapshot is built for them).
    /// </summary>
    /// <param name="sink">What receives each completed operation when not the view itself (the history comparison in front of it).</param>
    private Task<AnalysisFindings> AnalyseAsync(ITraceEventSource source, WatchView view, DiagnosisSettings diagnosis, TimeSpan? quietInterval, double clockRate, IOperationSink? sink, CancellationToken cancellationToken)
        => new AnalysisSession([source], new AnalysisOptions
            {
                Diagnosis = diagnosis,
                OnProgress = view.WantsProgress ? view.ShowProgress : null,
                QuietInterval = quietInterval,
                ClockRate = clockRate,
                Time = time ?? TimeProvider.System,
            })
            .RunAsync(sink ?? view, cancellationToken);
}
