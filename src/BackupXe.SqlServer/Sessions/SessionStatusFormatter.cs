using System.Globalization;

namespace BackupXe.SqlServer.Sessions;

/// <summary>Renders a <see cref="SessionStatus"/> as the lines <c>backupxe session status</c> prints.</summary>
public static class SessionStatusFormatter
{
    public static IReadOnlyList<string> Format(SessionStatus status)
    {
        ArgumentNullException.ThrowIfNull(status);
        if (!status.Exists)
        {
            return
            [
                $"Session {status.SessionName}: not installed.",
                $"  Run `backupxe session install --server ...`, or sessions/{SessionScripts.InstallFile} yourself (needs ALTER ANY EVENT SESSION).",
            ];
        }

        var lines = new List<string>
        {
            $"Session {status.SessionName}: {(status.Running ? "running" : "stopped")}.",
            $"  starts with server: {YesNo(status.StartsWithServer)}",
            $"  targets: {(status.Targets.Count == 0 ? "none" : string.Join(", ", status.Targets))}",
        };
        if (status.ConfiguredFile is not null)
        {
            lines.Add($"  file: {status.ConfiguredFile}");
        }

        if (status.CurrentFile is not null)
        {
            lines.Add($"  writing: {status.CurrentFile}");
        }

        if (status.Running)
        {
            lines.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"  dropped: {status.DroppedEventCount ?? 0} events, {status.DroppedBufferCount ?? 0} buffers"));
            if (status.BufferMemoryBytes is { } bytes)
            {
                lines.Add(string.Create(CultureInfo.InvariantCulture, $"  buffer memory: {bytes / 1024} KB"));
            }
        }

        if (status.LostEvents)
        {
            // ALLOW_SINGLE_EVENT_LOSS drops rather than stall the server: the loss is real and only counted here.
            lines.Add("  warning: the server dropped events; reports from this capture may miss waits or trace messages.");
        }

        if (!status.Running)
        {
            lines.Add($"  Start it: ALTER EVENT SESSION {SessionName.Quote(status.SessionName)} ON SERVER STATE = START;");
        }

        return lines;
    }

    /// <summary>The wait filter's comparison with this build: one line when it matches, else each drift and the repair.</summary>
    public static IReadOnlyList<string> FormatDrift(SessionDrift drift, string repair)
    {
        ArgumentNullException.ThrowIfNull(drift);
        if (!drift.Drifted)
        {
            return [$"  filter: {drift.Checked}"];
        }

        var lines = new List<string> { "  warning: the session was installed for another build; it misses or mislabels waits:" };
        lines.AddRange(drift.Drifts.Select(d => $"    {d}"));
        lines.Add($"  Repair (re-creates it with this build's keys): {repair}");
        return lines;
    }

    private static string YesNo(bool? value) => value switch
    {
        true => "yes",
        false => "no",
        null => "unknown",
    };
}
