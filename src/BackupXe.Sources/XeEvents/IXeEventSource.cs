using BackupXe.Core.Events;

namespace BackupXe.Sources.XeEvents;

/// <summary>
/// A source that can also list its events whole (every field and action), not only the ones BackupXe analyses:
/// what <c>backupxe events</c> prints. Every file format BackupXe reads implements it.
/// </summary>
public interface IXeEventSource
{
    /// <summary>What the user named.</summary>
    string Name { get; }

    /// <summary>Streams every event in the order the source holds it; damage is reported in <paramref name="status"/>.</summary>
    IAsyncEnumerable<XeEvent> ReadXeEventsAsync(SourceStatus status, CancellationToken cancellationToken);

    /// <summary>
    /// Adds the field and action names its events carry, reading no more than it must: a .xel's metadata (its
    /// files' first buffers), an ERRORLOG's two fixed fields (nothing read), XE XML's names (one pass without values).
    /// Uses the source up, as a read does; damage is left to the read that lists the events to report.
    /// </summary>
    void AddNames(XeNames names, CancellationToken cancellationToken);
}
