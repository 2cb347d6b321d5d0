using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Analysis;

/// <summary>One input of an analysis: where its events come from, and what reading it has found so far.</summary>
public sealed class AnalysisInput(ITraceEventSource source, SourceStatus? status = null)
{
    public ITraceEventSource Source { get; } = source;

    /// <summary>Filled while the input is read: events counted, problems met.</summary>
    public SourceStatus Status { get; } = status ?? new SourceStatus();

    public InputReport ToReport() => new(Source.Name, Source.Format, Status.Events, Status.Problems);
}
