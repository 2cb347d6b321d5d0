using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>Everything one listing read of a .xel gave: the whole events and the status.</summary>
internal sealed record XelRun(IReadOnlyList<XeEvent> Events, SourceStatus Status)
{
    public static Task<XelRun> ReadAsync(string path) => ReadAsync(new XelFileSource(path));

    public static Task<XelRun> ReadAsync(byte[] bytes) => ReadAsync(new XelFileSource("test.xel", () => new MemoryStream(bytes, writable: false)));

    public static async Task<XelRun> ReadAsync(XelFileSource source)
    {
        var status = new SourceStatus();
        var events = new List<XeEvent>();
        await foreach (var xeEvent in source.ReadXeEventsAsync(status, CancellationToken.None))
        {
            events.Add(xeEvent);
        }

        return new XelRun(events, status);
    }
}

internal static class XeEventValues
{
    public static XeValue Field(this XeEvent xeEvent, string name) => xeEvent.Fields.Single(f => f.Name == name);

    public static XeValue Action(this XeEvent xeEvent, string name) => xeEvent.Actions.Single(a => a.Name == name);
}
