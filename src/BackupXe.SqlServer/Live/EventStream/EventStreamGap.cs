using System.Globalization;

namespace BackupXe.SqlServer.Live.EventStream;

/// <summary>
/// A time the stream transport was not connected. The server does not keep what it dispatched while no reader was
/// attached (there is no position to resume from, unlike the file transport), so every event emitted in between
/// is lost: this says from when to when.
/// </summary>
/// <param name="DisconnectedUtc">When the previous connection ended (this machine's clock).</param>
/// <param name="ReconnectedUtc">When the new stream was accepted.</param>
/// <param name="LastEventUtc">Timestamp of the last event received before the drop, when there was one.</param>
internal sealed record EventStreamGap(DateTime DisconnectedUtc, DateTime ReconnectedUtc, DateTime? LastEventUtc)
{
    public TimeSpan Length => ReconnectedUtc > DisconnectedUtc ? ReconnectedUtc - DisconnectedUtc : TimeSpan.Zero;

    public string Describe()
    {
        var last = LastEventUtc is { } at ? $"; the last event received is from {Stamp(at)}" : string.Empty;
        return $"events emitted between {Stamp(DisconnectedUtc)} and {Stamp(ReconnectedUtc)} "
            + string.Create(CultureInfo.InvariantCulture, $"({Length.TotalSeconds:0.0} s) were not received and are lost: ")
            + $"the stream transport cannot resume after a dropped connection{last}. Use the file transport where nothing may be lost.";
    }

    private static string Stamp(DateTime at) => at.ToString("yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture) + " UTC";
}
