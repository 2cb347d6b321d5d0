using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.XeEvents;

/// <summary>What one decoded XE event became.</summary>
internal enum XeMappingOutcome
{
    /// <summary>An event to analyse.</summary>
    Event,

    /// <summary>A well-formed event BackupXe does not analyse (wait_info at opcode Begin): counted only.</summary>
    NotAnalysed,

    /// <summary>An event missing a required field: the caller reports it where it was found, and skips it.</summary>
    Invalid,
}

/// <summary>Which of the events BackupXe reads an event class is: resolved once per class where a reader can (.xel metadata).</summary>
internal enum XeEventKind
{
    Other,
    Progress,
    Wait,
    ExternalWait,
    Throughput,
}

/// <summary>
/// The one place where an Extended Events event, however it was read (.xel records, XE XML, a live stream),
/// becomes a BackupXe <see cref="TraceEvent"/>. Every reader fills an <see cref="XeEventFields"/> with the
/// fields it found and calls <see cref="Map(string, DateTime, XeEventFields, TraceMessageParser, out TraceEvent, out string)"/>,
/// so that a .xel and its fn_xe_file_target_read_file XML give identical events and therefore identical reports.
/// </summary>
internal static class XeEventMapping
{
    /// <param name="parser">The reading stream's own parser: a trace message is parsed once, here, so that a number
    /// SQL Server cannot write is reported where it was read; the correlator reuses the result.</param>
    /// <param name="problem">For <see cref="XeMappingOutcome.Invalid"/>: why the event is skipped, for the caller to locate.</param>
    public static XeMappingOutcome Map(
        string name, DateTime timestamp, XeEventFields fields, TraceMessageParser parser, out TraceEvent? traceEvent, out string? problem)
        => Map(KindOf(name), name, timestamp, fields, parser, out traceEvent, out problem);

    /// <param name="kind">What <see cref="KindOf"/> gives for <paramref name="name"/>, for a reader that resolved it once.</param>
    /// <inheritdoc cref="Map(string, DateTime, XeEventFields, TraceMessageParser, out TraceEvent, out string)"/>
    public static XeMappingOutcome Map(
        XeEventKind kind, string name, DateTime timestamp, XeEventFields fields, TraceMessageParser parser, out TraceEvent? traceEvent, out string? problem)
    {
        traceEvent = null;
        problem = null;
        if (!ServerRanges.IsTimestamp(timestamp))
        {
            problem = $"{name} event timestamp {timestamp:O} is outside what SQL Server writes; event skipped";
            return XeMappingOutcome.Invalid;
        }

        if (!TryRange(fields.SessionId, 0, ServerRanges.MaxSessionId, out var session))
        {
            return OutOfRange(name, "session_id", fields.SessionId.Text, out problem);
        }

        var sessionId = (int?)session;
        switch (kind)
        {
            case XeEventKind.Progress:
                if (fields.TraceMessage is null)
                {
                    return Missing(name, "trace_message", out problem);
                }

                var parsed = parser.Parse(fields.TraceMessage);
                if (parsed.Message is ImplausibleValue implausible)
                {
                    problem = $"{implausible.Reason}; event skipped";
                    return XeMappingOutcome.Invalid;
                }

                traceEvent = new ProgressTraceEvent(
                    timestamp,
                    sessionId,
                    fields.OperationKind,
                    fields.DatabaseName,
                    new ParsedText(fields.TraceMessage, parsed),
                    fields.TraceLevel.AsInt32);
                return XeMappingOutcome.Event;

            case XeEventKind.Wait:
            case XeEventKind.ExternalWait:
                // Duration is only filled on End; a Begin is half of a wait that its End reports whole.
                if (fields.IsBeginOpcode)
                {
                    return XeMappingOutcome.NotAnalysed;
                }

                if (string.IsNullOrEmpty(fields.WaitType))
                {
                    return Missing(name, "wait_type name (<text>)", out problem);
                }

                if (!fields.Duration.IsPresent)
                {
                    return Missing(name, "duration", out problem);
                }

                if (!TryRange(fields.Duration, 0, ServerRanges.MaxDurationMs, out var duration) || duration is null)
                {
                    return OutOfRange(name, "duration", fields.Duration.Text, out problem);
                }

                if (!TryRange(fields.SignalDuration, 0, ServerRanges.MaxDurationMs, out var signal))
                {
                    return OutOfRange(name, "signal_duration", fields.SignalDuration.Text, out problem);
                }

                traceEvent = new WaitEvent(
                    timestamp,
                    sessionId,
                    fields.WaitType,
                    duration.Value,
                    signal ?? 0,
                    IsExternal: kind == XeEventKind.ExternalWait);
                return XeMappingOutcome.Event;

            case XeEventKind.Throughput:
                if (!fields.Count.IsPresent)
                {
                    return Missing(name, "count", out problem);
                }

                if (!fields.Increment.IsPresent)
                {
                    return Missing(name, "increment", out problem);
                }

                if (!TryRange(fields.Count, 0, ServerRanges.MaxBytes, out var count) || count is null)
                {
                    return OutOfRange(name, "count", fields.Count.Text, out problem);
                }

                if (!TryRange(fields.Increment, 0, ServerRanges.MaxBytes, out var increment) || increment is null)
                {
                    return OutOfRange(name, "increment", fields.Increment.Text, out problem);
                }

                traceEvent = new ThroughputEvent(timestamp, sessionId, fields.DatabaseId.AsInt32, count.Value, increment.Value);
                return XeMappingOutcome.Event;

            default:
                traceEvent = new OtherEvent(timestamp, sessionId, name);
                return XeMappingOutcome.Event;
        }
    }

    /// <summary>
    /// Which event an event named <paramref name="name"/> is. <see cref="Map(string, DateTime, XeEventFields, TraceMessageParser, out TraceEvent, out string)"/>
    /// reads no field of an <see cref="XeEventKind.Other"/> (logins, batches...) besides its session: it becomes an
    /// <see cref="OtherEvent"/> of its time and session only.
    /// </summary>
    public static XeEventKind KindOf(string name) => name switch
    {
        "backup_restore_progress_trace" => XeEventKind.Progress,
        "wait_info" => XeEventKind.Wait,
        "wait_info_external" => XeEventKind.ExternalWait,

        // Both spellings are seen in the wild (docs/diagnosis.md lists the events captured).
        "databases_backup_restore_throughput" or "database_backup_restore_throughput" => XeEventKind.Throughput,
        _ => XeEventKind.Other,
    };

    /// <summary>
    /// What <see cref="Map(XeEventKind, string, DateTime, XeEventFields, TraceMessageParser, out TraceEvent, out string)"/>
    /// gives for a wait read as plain values (a reader that has its columns' bytes), when every value is one SQL Server
    /// writes; false, with nothing decided, when one is not, so that the caller maps the event the general way and the
    /// problem is said as it always is.
    /// </summary>
    public static bool TryMapPlainWait(
        XeEventKind kind, DateTime timestamp, XeNumber session, bool begin, string? waitType, ulong duration, ulong? signal,
        out XeMappingOutcome outcome, out TraceEvent? traceEvent)
    {
        outcome = XeMappingOutcome.Invalid;
        traceEvent = null;
        int? sessionId = null;
        if (session.IsPresent)
        {
            if (!session.IsInteger || session.Value is < 0 or > ServerRanges.MaxSessionId)
            {
                return false;
            }

            sessionId = (int)session.Value;
        }

        if (!ServerRanges.IsTimestamp(timestamp))
        {
            return false;
        }

        if (begin)
        {
            outcome = XeMappingOutcome.NotAnalysed;
            return true;
        }

        if (string.IsNullOrEmpty(waitType) || duration > ServerRanges.MaxDurationMs || signal > ServerRanges.MaxDurationMs)
        {
            return false;
        }

        traceEvent = new WaitEvent(timestamp, sessionId, waitType, (long)duration, (long)(signal ?? 0), IsExternal: kind == XeEventKind.ExternalWait);
        outcome = XeMappingOutcome.Event;
        return true;
    }

    private static XeMappingOutcome Missing(string eventName, string field, out string problem)
    {
        problem = $"{eventName} event has no {field}; event skipped";
        return XeMappingOutcome.Invalid;
    }

    private static XeMappingOutcome OutOfRange(string eventName, string field, string? value, out string problem)
    {
        var shown = value is { Length: > 40 } ? value[..40] + "..." : value;
        problem = $"{eventName} event has {field} '{shown}', not a value SQL Server writes; event skipped";
        return XeMappingOutcome.Invalid;
    }

    /// <summary>
    /// True when <paramref name="number"/> is absent (value null) or an integer in [min, max]; false for anything
    /// else, including a negative duration or a number too long for a long.
    /// </summary>
    private static bool TryRange(XeNumber number, long min, long max, out long? value)
    {
        value = null;
        if (!number.IsPresent)
        {
            return true;
        }

        if (!number.IsInteger || number.Value < min || number.Value > max)
        {
            return false;
        }

        value = number.Value;
        return true;
    }
}
