using BackupXe.Core.Events;
using BackupXe.Worker.Configuration;

namespace BackupXe.Worker.Monitoring;

/// <summary>Opens the event source an instance is configured with (a replayed file, or a live session).</summary>
internal interface IInstanceSourceFactory
{
    /// <summary>Called again after every failure, so a source is never reused once it has thrown.</summary>
    ITraceEventSource Open(InstanceOptions instance);
}
