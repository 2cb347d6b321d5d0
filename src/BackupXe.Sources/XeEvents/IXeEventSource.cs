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
}
