using BackupXe.Core.Events;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>A source that can save its position when the analysis says it is idle (<c>AnalysisOptions.OnIdle</c>).</summary>
public interface IIdleCheckpoint
{
    /// <summary>The analysis is idle after <paramref name="observed"/>, the event this source yielded last.</summary>
    void MarkIdle(TraceEvent observed);
}
