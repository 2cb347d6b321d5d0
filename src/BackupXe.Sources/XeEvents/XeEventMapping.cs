using System.Globalization;
using BackupXe.Core.Events;

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

/// <summary>
/// The one place where an Extended Events event, however it was read (.xel records, XE XML, a live stream),
/// becomes a BackupXe <see cref="TraceEvent"/>. Every reader fills an <see cref="XeEventFields"/> with the
/// fields it found and calls <see cref="Map"/>, so that a .xel and its fn_xe_file_target_read_file XML give
/// identical events and therefore identical reports.
/// </summary>
internal static class XeEventMapping
{
    /// <param name="missing">For <see cref="XeMappingOutcome.Invalid"/>: the field that was required and absent.</param>
    public static XeMappingOutcome Map(string name, DateTime timestamp, XeEventFields fields, out TraceEvent? traceEvent, out string? missing)
    {
        traceEvent = null;
        missing = null;
        var sessionId = ParseInt(fields.SessionId);
        switch (name)
        {
            case "backup_restore_progress_trace":
                if (fields.TraceMessage is null)
                {
                    missing = "trace_message";
                    return XeMappingOutcome.Invalid;
                }

                traceEvent = new ProgressTraceEvent(
                    timestamp,
                    sessionId,
                    fields.OperationKind,
                    fields.DatabaseName,
                    fields.TraceMessage,
                    ParseInt(fields.TraceLevel));
                return XeMappingOutcome.Event;

            case "wait_info":
            case "wait_info_external":
                // Duration is only filled on End; a Begin is half of a wait that its End reports whole.
                if (fields.IsBeginOpcode)
                {
                    return XeMappingOutcome.NotAnalysed;
                }

                if (string.IsNullOrEmpty(fields.WaitType))
                {
                    missing = "wait_type name (<text>)";
                    return XeMappingOutcome.Invalid;
                }

                if (ParseLong(fields.Duration) is not { } duration)
                {
                    missing = "duration";
                    return XeMappingOutcome.Invalid;
                }

                traceEvent = new WaitEvent(
                    timestamp,
                    sessionId,
                    fields.WaitType,
                    duration,
                    ParseLong(fields.SignalDuration) ?? 0,
                    IsExternal: name == "wait_info_external");
                return XeMappingOutcome.Event;

            // Both spellings are seen in the wild (domain.md section 2).
            case "databases_backup_restore_throughput":
            case "database_backup_restore_throughput":
                if (ParseLong(fields.Count) is not { } count)
                {
                    missing = "count";
                    return XeMappingOutcome.Invalid;
                }

                if (ParseLong(fields.Increment) is not { } increment)
                {
                    missing = "increment";
                    return XeMappingOutcome.Invalid;
                }

                traceEvent = new ThroughputEvent(timestamp, sessionId, ParseInt(fields.DatabaseId), count, increment);
                return XeMappingOutcome.Event;

            default:
                traceEvent = new OtherEvent(timestamp, sessionId, name);
                return XeMappingOutcome.Event;
        }
    }

    /// <summary>The problem text for an <see cref="XeMappingOutcome.Invalid"/> event.</summary>
    public static string MissingMessage(string eventName, string field) => $"{eventName} event has no {field}; event skipped";

    private static int? ParseInt(string? text) =>
        int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : null;

    private static long? ParseLong(string? text) =>
        long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : null;
}
