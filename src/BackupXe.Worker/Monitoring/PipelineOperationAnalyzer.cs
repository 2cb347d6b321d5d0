using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// The production analyzer: Core's OperationPipeline. It is written on another branch, so this file compiles
/// only once src/BackupXe.Core/Pipeline/OperationPipeline.cs exists (see BackupXe.Worker.csproj).
/// </summary>
public sealed class PipelineOperationAnalyzer : IOperationAnalyzer
{
    public async IAsyncEnumerable<OperationReport> AnalyzeAsync(
        ITraceEventSource source, SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var completed = new CompletedOperations();
        var pipeline = new OperationPipeline(completed);
        await foreach (var traceEvent in source.ReadEventsAsync(status, cancellationToken))
        {
            pipeline.Observe(traceEvent);
            while (completed.TryTake(out var report))
            {
                yield return report;
            }
        }

        // Flush hands every remaining operation (incomplete ones too) to the sink.
        pipeline.Flush();
        foreach (var report in completed.TakeAll().Where(completed.FirstSighting))
        {
            yield return report;
        }
    }

    private sealed class CompletedOperations : IOperationSink
    {
        private readonly Queue<OperationReport> _pending = new();
        private readonly HashSet<OperationReport> _yielded = new(ReferenceEqualityComparer.Instance);

        public void OnOperationCompleted(OperationReport report) => _pending.Enqueue(report);

        public bool TryTake(out OperationReport report)
        {
            while (_pending.TryDequeue(out report!))
            {
                if (_yielded.Add(report))
                {
                    return true;
                }
            }

            return false;
        }

        public IEnumerable<OperationReport> TakeAll()
        {
            while (_pending.TryDequeue(out var report))
            {
                yield return report;
            }
        }

        public bool FirstSighting(OperationReport report) => _yielded.Add(report);
    }
}
