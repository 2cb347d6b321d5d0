using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Tests.Support;

/// <summary>Feeds events through a real pipeline and keeps what comes out.</summary>
internal sealed class PipelineRun : IOperationSink
{
    private readonly List<OperationReport> _reports = [];

    private PipelineRun()
    {
        Pipeline = new OperationPipeline(this, compareRuns: true);
    }

    public OperationPipeline Pipeline { get; }

    public IReadOnlyList<OperationReport> Reports => _reports;

    public static PipelineRun Of(IEnumerable<TraceEvent> events, bool flush = true)
    {
        var run = new PipelineRun();
        foreach (var traceEvent in events)
        {
            run.Pipeline.Observe(traceEvent);
        }

        if (flush)
        {
            run.Pipeline.Flush();
        }

        return run;
    }

    public static async Task<PipelineRun> OfAsync(ITraceEventSource source)
    {
        // Through the product's one analysis path, as analyze, watch and the daemon run it.
        var run = new PipelineRun();
        await new AnalysisSession([source], new AnalysisOptions { CompareRuns = true }).RunAsync(run, CancellationToken.None);
        return run;
    }

    public void OnOperationCompleted(OperationReport report) => _reports.Add(report);
}

/// <summary>Events in the shape XE delivers them, on a clock that starts at a fixed UTC instant.</summary>
internal sealed class XeScript(DateTime start)
{
    private readonly List<TraceEvent> _events = [];

    public XeScript()
        : this(new DateTime(2024, 5, 1, 10, 0, 0, DateTimeKind.Utc))
    {
    }

    public IReadOnlyList<TraceEvent> Events => _events.OrderBy(e => e.Timestamp).ToList();

    public XeScript Backup(double atSeconds, int session, string database, string message)
        => Add(new ProgressTraceEvent(At(atSeconds), session, OperationKind.Backup, database, message));

    public XeScript Restore(double atSeconds, int session, string database, string message)
        => Add(new ProgressTraceEvent(At(atSeconds), session, OperationKind.Restore, database, message));

    public XeScript Wait(double endSeconds, int? session, string waitType, long durationMs, long signalMs = 0)
        => Add(new WaitEvent(At(endSeconds), session, waitType, durationMs, signalMs));

    public XeScript CompleteBackup(double startSeconds, double seconds, int session, string database, string device)
    {
        Backup(startSeconds, session, database, "BACKUP DATABASE started");
        Backup(startSeconds + 0.01, session, database, "Estimated total size = 1073741824 bytes (data size = 1073741824 bytes, log size = 0 bytes)");
        Backup(startSeconds + 0.02, session, database, $"BackupStream(0): Writing leading metadata to the device {device}");
        Backup(startSeconds + 0.03, session, database, "Copying data files");
        Backup(startSeconds + seconds - 0.01, session, database, "100 percent (1073741824/1073741824 bytes) processed");
        return Backup(startSeconds + seconds, session, database, "BACKUP DATABASE finished");
    }

    private DateTime At(double seconds) => start.AddSeconds(seconds);

    private XeScript Add(TraceEvent traceEvent)
    {
        _events.Add(traceEvent);
        return this;
    }
}
