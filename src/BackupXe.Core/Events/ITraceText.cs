namespace BackupXe.Core.Events;

/// <summary>
/// A progress event's text held in the form its reader read it, and written out only when something asks for
/// <see cref="ProgressTraceEvent.Message"/>, which in an analysis nothing does.
/// </summary>
public interface ITraceText
{
    /// <summary>The text as the source wrote it, prefix and all, character for character.</summary>
    string Write();
}
