using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Analysis;
using BackupXe.Core.Baselines;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Live.RingBuffer;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe watch</c>: live progress and the verdict of each backup/restore as it ends. <c>--replay</c> drives the
/// same pipeline from a captured file with its original timing.
/// </summary>
internal static class WatchCommand
{
    /// <summary>An hour: a slower poll would show nothing a DBA watching a backup can use.</summary>
    private const double MaxPollSeconds = 3600;

    // Each read serializes the whole target to XML on the server: often enough to keep up with a 1,000-event buffer
    // during a backup, not so often that the reads themselves cost (docs/live.md).
    private static readonly TimeSpan RingBufferPollInterval = TimeSpan.FromSeconds(2);

    /// <param name="console">Where the view goes; standard output is opened as bytes for JSON Lines.</param>
    public static Command Create(CliConsole console, TimeProvider? time = null)
    {
        var connection = new ConnectionOptions(serverRequired: false);
        var server = connection.Server;
        var sessionName = new Option<string>("--session-name") { Description = "With --server: the capture session whose event_file is read.", DefaultValueFactory = _ => SessionName.Default };
        var database = OperationFilter.DatabaseOption();
        var replay = new Option<string?>("--replay") { Description = "Replay a .xel / XE XML / ERRORLOG file through the live pipeline instead of connecting." };
        var speed = new Option<double>("--speed") { Description = "Replay speed: 1 = original timing, 10 = ten times faster, 0 = as fast as possible.", DefaultValueFactory = _ => 1 };
        speed.Validators.Add(result =>
        {
            var value = result.GetValueOrDefault<double>();
            if (!ReplayEventSource.IsValidSpeed(value))
            {
                result.AddError($"--speed {ReplayEventSource.SpeedRule}; it is {value:R}.");
            }
        });
        var format = new Option<string>("--format", "-f")
        {
            Description = "console (default), json (one report object per line, as each operation ends) or html (progress on the console, "
                + "and a self-contained HTML report of every operation written to --output, complete at the end).",
            DefaultValueFactory = _ => "console",
        };
        Choices.OneOf(format, "console", "json", "html");
        var output = new Option<string?>("--output", "-o") { Description = "With --format html: the HTML file to write." };
        var transport = new Option<string>("--transport")
        {
            Description = "With --server: file (the default) tails the session's event_file; stream (experimental) reads "
                + "sys.fn_MSxe_read_event_stream, with less latency but losing (and reporting) what is emitted while disconnected; "
                + "ring_buffer reads an existing session's ring_buffer target every 2 s (the Managed Instance route), reporting what it discarded before a read.",
            DefaultValueFactory = _ => LiveTransport.File,
        };
        Choices.OneOf(transport, LiveTransport.File, LiveTransport.Stream, LiveTransport.RingBuffer);
        var pollRequests = new Option<double>("--poll-requests")
        {
            Description = "With --server: read sys.dm_exec_requests again every SECONDS, so the percent of a backup that started before the watch "
                + "moves even without its events (0, the default: read once at the start).",
            DefaultValueFactory = _ => 0,
        };
        pollRequests.Validators.Add(result =>
        {
            var value = result.GetValueOrDefault<double>();
            if (!(value is >= 0 and <= MaxPollSeconds))
            {
                result.AddError($"--poll-requests is {value:R}; it must be 0 (read once) or up to {MaxPollSeconds} seconds.");
            }
        });
        var stallAfter = StallAfterOption();
        var startSession = new Option<bool>("--start-session")
        {
            Description = "With --server: create and start the capture session for this watch only (STARTUP_STATE OFF), and stop and drop it "
                + "when the watch ends, so the server captures only while someone watches. The login's permission to create, start, stop "
                + "and drop it is checked before anything is created; a session of that name that already runs is read and left alone.",
        };
        var budget = CommonOptions.MemoryBudget();
        var noColor = CommonOptions.NoColor();

        var command = new Command("watch", "Watch backups and restores live, with a diagnosis of each one as it completes.")
        {
            database, replay, speed, format, output, budget, noColor, sessionName, pollRequests, transport, stallAfter, startSession,
        };
        connection.AddTo(command);
        var history = new HistoryOptions();
        history.AddTo(command);
        OutputTarget.MustNotOverwriteWhatIsRead(command, output, result => [result.GetValue(replay), .. OutputTarget.SqliteFiles(history.PathOf(result))]);
        command.Validators.Add(result =>
        {
            // Silently preferring one would watch something the user did not ask for.
            if (result.GetValue(replay) is not null && result.GetValue(server) is not null)
            {
                result.AddError("--replay and --server are exclusive: replay a capture or watch a server, not both.");
            }

            if (result.GetValue(replay) is null && result.GetResult(speed) is { Implicit: false })
            {
                result.AddError("--speed paces a replay; give --replay FILE with it.");
            }

            if (result.GetValue(server) is null && result.GetResult(transport) is { Implicit: false })
            {
                result.AddError("--transport chooses how a server is read; give --server S with it.");
            }

            if (result.GetValue(server) is null && result.GetValue(startSession))
            {
                result.AddError("--start-session creates a capture session on a server; give --server S with it.");
            }

            if (result.GetValue(startSession) && result.GetValue(transport) == LiveTransport.RingBuffer)
            {
                result.AddError("--start-session creates a session with an event_file target; --transport ring_buffer reads an existing session's ring_buffer target. Leave one out.");
            }

            if (result.GetValue(server) is null && result.GetResult(pollRequests) is { Implicit: false })
            {
                result.AddError("--poll-requests reads a server's sys.dm_exec_requests; give --server S with it.");
            }
        });
        command.SetAction(async (parse, cancellationToken) =>
        {
            var replayPath = parse.GetValue(replay);
            if (replayPath is null && parse.GetValue(server) is null)
            {
                await console.Error.WriteLineAsync("backupxe: watch needs --server S (a live server) or --replay FILE (a capture).");
                return ExitCodes.NothingUsable;
            }

            var htmlPath = parse.GetValue(format) == "html" ? parse.GetValue(output) : null;
            if (parse.GetValue(format) == "html" && htmlPath is null)
            {
                await console.Error.WriteLineAsync("backupxe: --format html writes a file while the console shows progress: name it with --output FILE.html.");
                return ExitCodes.NothingUsable;
            }

            if (replayPath is not null)
            {
                var source = ReplayEventSource.Play(InputSources.Open(replayPath), parse.GetValue(speed), time ?? TimeProvider.System);
                // A paced replay ticks as a live server does, at its own speed, so phases without messages show their time.
                var pace = parse.GetValue(speed);
                var paced = pace > 0 && !double.IsPositiveInfinity(pace);
                return await WatchAsync(parse, source, htmlPath, $"{replayPath}: ", paced ? AnalysisOptions.LiveQuietInterval : null, null, cancellationToken, paced ? pace : 1);
            }

            var session = new CaptureSessionSettings(parse.GetValue(sessionName)!);
            return await ServerCall.RunAsync(console, parse, connection, session, async factory =>
            {
                if (!parse.GetValue(startSession))
                {
                    return await WatchServerAsync(parse, factory, session, htmlPath, cancellationToken);
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
                    exit = await WatchServerAsync(parse, factory, session, htmlPath, cancellationToken);
                }
                finally
                {
                    exit = await StopAsync(console, temporary, name, exit);
                }

                return exit;
            }, creates: parse.GetValue(startSession));
        });
        return command;

        async Task<int> WatchServerAsync(ParseResult parse, SqlConnectionFactory factory, CaptureSessionSettings session, string? htmlPath, CancellationToken cancellationToken)
        {
            {
                var lines = new WatchConnectionLines(console.Error, factory.Settings.Server);
                var chosen = parse.GetValue(transport)!;
                var live = LiveSources.Open(new LiveSourceSettings(factory, session)
                {
                    Transport = chosen,
                    TailOptions = chosen == LiveTransport.RingBuffer ? new EventFileTailOptions { PollInterval = RingBufferPollInterval } : new EventFileTailOptions(),
                    Observer = lines,
                    Time = time,
                });
                var requests = new WatchRequests(factory, session, TimeSpan.FromSeconds(parse.GetValue(pollRequests)), console.Error, time ?? TimeProvider.System, lines);
                try
                {
                    return await WatchAsync(parse, live, htmlPath, string.Empty, AnalysisOptions.LiveQuietInterval, requests, cancellationToken);
                }
                // Ctrl-C is how a live watch ends: every operation that ended was already shown.
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    return ExitCodes.Success;
                }
            }
        }

        // After Ctrl-C too: the token is spent, and leaving the session running is what --start-session promises not to do.
        static async Task<int> StopAsync(CliConsole console, WatchCaptureSession temporary, string server, int exit)
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

        async Task<int> WatchAsync(ParseResult parse, ITraceEventSource source, string? htmlPath, string problemPrefix, TimeSpan? quietInterval, WatchRequests? requests, CancellationToken cancellationToken, double clockRate = 1)
        {
            var json = parse.GetValue(format) == "json";
            var budgetBytes = CommonOptions.BudgetBytes(parse.GetValue(budget));
            var renderer = CommonOptions.ConsoleRenderer(console, verbose: false, parse.GetValue(noColor));
            await using var htmlFile = htmlPath is null ? null : new StreamWriter(htmlPath, append: false);
            var html = htmlFile is null ? null : new HtmlReportWriter(htmlFile, "BackupXe watch", budgetBytes);
            // JSON Lines go out as UTF-8 bytes, after whatever the console holds as text.
            await using var jsonOutput = json ? new ReportOutput(null, console) : null;
            using var jsonLines = jsonOutput is null ? null : new JsonLinesWriter(jsonOutput.Bytes);
            var (past, historyError) = await history.LoadAsync(parse, console.Error, cancellationToken);
            if (historyError is not null)
            {
                await console.Error.WriteLineAsync(historyError);
                return ExitCodes.NothingUsable;
            }

            var view = new WatchView(
                console.Out, renderer, OperationFilter.Names(parse.GetValue(database)), jsonLines, html is null ? null : html.WriteOperation,
                inPlace: !json && !console.IsOutputRedirected, width: Terminal.Width(console, toFile: false))
            {
                Eta = past is null ? null : new HistoryEta(past),
            };
            var settings = new DiagnosisSettings { MemoryBudgetBytes = budgetBytes, StallAfter = TimeSpan.FromSeconds(parse.GetValue(stallAfter)) };

            using var compared = past is null ? null : new HistoryComparingStream(view, past);
            AnalysisFindings findings;
            if (requests is null)
            {
                findings = await RunAsync(source, view, settings, cancellationToken, quietInterval, clockRate, compared, time);
            }
            else
            {
                // Backups already running show first, from the DMV; their events then take over (WatchView ties them).
                await requests.ShowAtStartAsync(view, cancellationToken);
                using var polling = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
                var poll = requests.PollAsync(view, polling.Token);
                try
                {
                    findings = await RunAsync(source, view, settings, cancellationToken, quietInterval, sink: compared, time: time);
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
                await console.Error.WriteLineAsync(Core.Rendering.TerminalText.Line($"backupxe: {problemPrefix}{problem.Location}: {problem.Message}"));
            }

            return ExitCodes.For(findings);
        }
    }

    /// <summary>A day: no backup step is expected to sit longer without moving, and a longer limit names nothing.</summary>
    public const double MaxStallAfterSeconds = 86_400;

    private static Option<double> StallAfterOption()
    {
        var option = new Option<double>("--stall-after")
        {
            Description = "Name a quiet period once an operation has moved no bytes and stayed in one phase for SECONDS: a stall in a phase "
                + "that moves bytes, expected waiting in one that moves none (zeroing, redo, recovery, upgrade). Default 300.",
            DefaultValueFactory = _ => Core.Correlation.ByteFlow.DefaultStallAfter.TotalSeconds,
        };
        option.Validators.Add(result =>
        {
            var value = result.GetValueOrDefault<double>();
            if (!(value is >= 1 and <= MaxStallAfterSeconds))
            {
                result.AddError($"--stall-after is {value:R}; it must be from 1 to {MaxStallAfterSeconds} seconds.");
            }
        });
        return option;
    }

    /// <summary>
    /// The analysis session with the view attached: each diagnosis as it ends, and, for the console only,
    /// progress after each trace message (JSON Lines show no progress, so no snapshot is built for them).
    /// </summary>
    /// <param name="sink">What receives each completed operation when not the view itself (the history comparison in front of it).</param>
    /// <param name="time">The clock the quiet ticks are measured on, the one the replay is paced by: the system's, a test's fake one.</param>
    public static Task<AnalysisFindings> RunAsync(ITraceEventSource source, WatchView view, DiagnosisSettings settings, CancellationToken cancellationToken, TimeSpan? quietInterval = null, double clockRate = 1, IOperationSink? sink = null, TimeProvider? time = null)
        => new AnalysisSession([source], new AnalysisOptions
            {
                Diagnosis = settings,
                OnProgress = view.WantsProgress ? view.ShowProgress : null,
                QuietInterval = quietInterval,
                ClockRate = clockRate,
                Time = time ?? TimeProvider.System,
            })
            .RunAsync(sink ?? view, cancellationToken);
}
