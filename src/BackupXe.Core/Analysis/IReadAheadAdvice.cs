namespace BackupXe.Core.Analysis;

/// <summary>
/// A file source that says whether reading it on a thread of its own, ahead of the analysis, shortens a run
/// (<see cref="ReadAhead"/>). A source without it is read ahead where a second core exists: its analysis is a large
/// share of the work (an ERRORLOG's). A source answers false when reading is nearly all of it, or when it already
/// decodes on other cores, and a second thread would only add hand-overs.
/// </summary>
public interface IReadAheadAdvice
{
    bool ReadAheadPays { get; }
}
