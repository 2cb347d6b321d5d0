using BackupXe.Core.Baselines;
using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// Watches one instance: reads its source, hands each completed operation to the recorder and, when anything
/// fails, logs it under the instance's name and opens the source again after a delay. It throws only when the
/// history file is unusable (<see cref="History.HistoryStoreException"/>), which no retry can mend and which
/// every instance shares: the daemon then stops with exit code 3.
/// </summary>
internal sealed class InstanceMonitor(
    InstanceOptions instance,
    IInstanceSourceFactory sources,
    IOperationAnalyzer analyzer,
    OperationRecorder recorder,
    BackupXeMetrics metrics,
    TimeProvider time,
    TimeSpan retryDelay,
    ILogger<InstanceMonitor> logger,
    TimeSpan? stallAfter = null,
    StallWaits? stallWaits = null,
    StoredBaselines? paces = null)
{
    // The token of the current run, for the current-wait reads a stall starts from the analysis' callback.
    private CancellationToken _running;

    private const string LiveFormat = "live";

    public string Name { get; } = instance.Name ?? throw new ArgumentException("An instance to monitor needs a name.", nameof(instance));

    public async Task RunAsync(CancellationToken cancellationToken)
    {
        _running = cancellationToken;
        for (var attempt = 0; !cancellationToken.IsCancellationRequested; attempt++)
        {
            if (attempt > 0)
            {
                metrics.RecordReconnect(Name);
            }

            try
            {
                if (await ReadToEndAsync(cancellationToken))
                {
                    return;
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return;
            }
            catch (Exception exception) when (exception is not HistoryStoreException)
            {
                // Only the type and a scrubbed message: a driver's message can quote the connection string.
                logger.InstanceFailed(Name, exception.GetType().Name, ConnectionStringRedactor.RedactMessage(exception.Message), retryDelay.TotalSeconds);
                logger.InstanceFailureDetail(Name, ConnectionStringRedactor.RedactMessage(exception.ToString()));
            }

            try
            {
                await Task.Delay(retryDelay, time, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    /// <summary>
    /// Each progress update: the running operations' ETAs (their own, else their series' usual pace in the history) to
    /// the gauge and, when first known or newly based, to the log; then their quiet periods.
    /// </summary>
    private void OnRunning(IReadOnlyList<OperationProgress> running, BaselineEta? eta, EtaWatch etas, StallWatch stalls)
    {
        var shown = eta?.Apply(running) ?? running;
        metrics.RecordRunning(Name, shown);
        foreach (var op in etas.Update(shown))
        {
            var (low, high) = op.RemainingRange!.Value;
            logger.OperationEta(Kebab.Of(op.Kind), Line(op.Database), Name, op.SessionId, op.Percent, op.MegabytesPerSecond, low.TotalSeconds, high.TotalSeconds, EtaWatch.Basis(op));
        }

        Announce(stalls.Update(shown));
    }

    /// <summary>A name from an input is written into log lines: a line break in it must not forge a line of its own.</summary>
    private static string? Line(string? text) => text is null ? null : Core.Rendering.TerminalText.Line(text);

    /// <summary>Each quiet period once: a warning for a stall, information for a phase expected to move no bytes, and a count.</summary>
    private void Announce(IReadOnlyList<StallNotice> notices)
    {
        foreach (var notice in notices)
        {
            var op = notice.Operation;
            var quiet = notice.Period;
            metrics.RecordQuietPeriod(Name, quiet);
            if (quiet.Kind == QuietKind.Stall)
            {
                // The ETA's bounds as numbers beside the text, for a log query.
                using var eta = op.RemainingRange is { } range
                    ? logger.BeginScope(new Dictionary<string, object?>
                    {
                        ["RemainingLowSeconds"] = range.Low.TotalSeconds,
                        ["RemainingHighSeconds"] = range.High.TotalSeconds,
                        ["EtaBasis"] = EtaWatch.Basis(op),
                    })
                    : null;
                logger.OperationStalled(
                    Kebab.Of(op.Kind), op.Database, Name, op.SessionId, quiet.Seconds, quiet.Phase, quiet.From, notice.Ended,
                    QuietPeriodText.LookAt(op.SessionId, null, op.TopWait),
                    op.RemainingRange is { } r
                        ? $"{Figures.Duration(r.Low.TotalSeconds)} to {Figures.Duration(r.High.TotalSeconds)} ({EtaWatch.Basis(op)})"
                        : "unknown");
                // Only while it lasts: once bytes move again, the session's wait says nothing about the stall.
                if (!notice.Ended && stallWaits is not null && op.SessionId is { } session)
                {
                    _ = stallWaits.LogAsync(Name, Kebab.Of(op.Kind), op.Database, session, quiet.Phase, _running);
                }
            }
            else
            {
                logger.ExpectedWait(Kebab.Of(op.Kind), op.Database, Name, op.SessionId, quiet.Seconds, quiet.Phase, quiet.From, QuietPeriodText.Expected(quiet.Phase));
            }
        }
    }

    /// <summary>True when the source is finished for good (a replay read to its end).</summary>
    private async Task<bool> ReadToEndAsync(CancellationToken cancellationToken)
    {
        var source = sources.Open(instance);
        var sourceName = ConnectionStringRedactor.RedactMessage(source.Name);
        logger.SourceOpened(Name, sourceName, source.Format);

        var status = new SourceStatus();
        var counted = new CountingEventSource(source, () => metrics.RecordEventReceived(Name));
        // A checkpointing live source saves its position where the analysis is idle (docs/history.md).
        var onIdle = source is IIdleCheckpoint checkpointed ? checkpointed.MarkIdle : (Action<TraceEvent>?)null;
        var stalls = new StallWatch();
        var etas = new EtaWatch();
        var eta = paces is null ? null : new BaselineEta(paces.PacesOf(Name, cancellationToken));
        var hooks = new LiveHooks(onIdle, running => OnRunning(running, eta, etas, stalls), stallAfter ?? ByteFlow.DefaultStallAfter) { Time = time };
        try
        {
            await foreach (var report in analyzer.AnalyzeAsync(counted, status, hooks, cancellationToken))
            {
                await recorder.RecordAsync(Name, report, cancellationToken);
            }
        }
        finally
        {
            metrics.ForgetRunning(Name);
        }

        foreach (var problem in status.Problems)
        {
            logger.SourceProblem(Name, sourceName, problem.Location, Core.Rendering.TerminalText.Line(problem.Message));
        }

        if (source.Format == LiveFormat)
        {
            // A live stream has no end of its own: ending means the session or the connection went away.
            logger.LiveStreamEnded(Name, sourceName, retryDelay.TotalSeconds);
            return false;
        }

        logger.ReplayFinished(Name, sourceName, status.Events);
        return true;
    }
}
