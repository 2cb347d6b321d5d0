using BackupXe.Core.Events;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>
/// A wait_info (or wait_info_external) event's analysed columns where the file's metadata makes each fixed-size and
/// plain: its opcode and wait type are map keys, its duration and signal duration unsigned numbers, and no session
/// column (the session is the action). A wait is then mapped from its payload's bytes without the field set, by
/// <see cref="XeEventMapping.TryMapPlainWait"/>; anything that rule does not vouch for goes the general way.
/// </summary>
internal sealed class XelWaitColumns
{
    private XelWaitColumns(XelValuePlan opcode, XelValuePlan waitType, XelValuePlan duration, XelValuePlan? signal)
    {
        Opcode = opcode;
        WaitType = waitType;
        Duration = duration;
        Signal = signal;
    }

    public XelValuePlan Opcode { get; }

    public XelValuePlan WaitType { get; }

    public XelValuePlan Duration { get; }

    public XelValuePlan? Signal { get; }

    /// <summary>The columns of <paramref name="analysed"/> (every one fixed-size), or null when one is not as described.</summary>
    public static XelWaitColumns? For(XelValuePlan[] analysed)
    {
        XelValuePlan? opcode = null, waitType = null, duration = null, signal = null;
        foreach (var column in analysed)
        {
            switch (column.Field)
            {
                case XeField.Opcode when column is { Kind: XelValueKind.Map, Map: not null } && opcode is null:
                    opcode = column;
                    break;
                case XeField.WaitType when column is { Kind: XelValueKind.Map, Map: not null } && waitType is null:
                    waitType = column;
                    break;
                case XeField.Duration when column.Kind == XelValueKind.Unsigned && duration is null:
                    duration = column;
                    break;
                case XeField.SignalDuration when column.Kind == XelValueKind.Unsigned && signal is null:
                    signal = column;
                    break;
                default:
                    return null;
            }
        }

        return opcode is null || waitType is null || duration is null ? null : new XelWaitColumns(opcode, waitType, duration, signal);
    }

    /// <summary>
    /// The wait in <paramref name="payload"/> (long enough for every column), as <see cref="XeEventMapping.Map(XeEventKind, string, DateTime, XeEventFields, Core.Parsing.TraceMessageParser, out TraceEvent, out string)"/>
    /// would map it; false when that needs deciding the general way.
    /// </summary>
    public bool TryMap(XeEventKind kind, DateTime timestamp, ReadOnlySpan<byte> payload, XeNumber session, out XeMappingOutcome outcome, out TraceEvent? traceEvent)
    {
        var opcodeKey = XelValuePlan.KeyOf(payload.Slice(Opcode.Offset, Opcode.Size));
        var waitTypeKey = XelValuePlan.KeyOf(payload.Slice(WaitType.Offset, WaitType.Size));
        return XeEventMapping.TryMapPlainWait(
            kind,
            timestamp,
            session,
            XeEventFields.IsBegin(Opcode.Map!.Text(opcodeKey), opcodeKey == 0),
            WaitType.Map!.Text(waitTypeKey),
            XelValuePlan.KeyOf(payload.Slice(Duration.Offset, Duration.Size)),
            Signal is null ? null : XelValuePlan.KeyOf(payload.Slice(Signal.Offset, Signal.Size)),
            out outcome,
            out traceEvent);
    }
}
