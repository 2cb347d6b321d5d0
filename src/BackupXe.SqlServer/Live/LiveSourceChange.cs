using System.Globalization;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// Receives what happens to a live connection, for the CLI to print and the worker to log and count.
/// Called from the reading task; an observer that throws is ignored rather than allowed to stop the capture.
/// </summary>
public interface ILiveSourceObserver
{
    void OnChange(LiveSourceChange change);
}

/// <summary>A state change of a <see cref="ResilientLiveSource"/>; <see cref="Describe"/> is one log line.</summary>
public abstract record LiveSourceChange
{
    public abstract string Describe();

    /// <summary>Opening connection number <paramref name="Connection"/> (1 for the first).</summary>
    public sealed record Connecting(int Connection) : LiveSourceChange
    {
        public override string Describe() => $"connecting (connection {Connection})";
    }

    /// <summary>The server accepted the stream (only when the adapter can tell).</summary>
    public sealed record Connected(int Connection) : LiveSourceChange
    {
        public override string Describe() => $"connected (connection {Connection})";
    }

    /// <summary>The first event of a connection arrived; the reconnect back-off starts over.</summary>
    public sealed record EventsFlowing(int Connection) : LiveSourceChange
    {
        public override string Describe() => $"events flowing (connection {Connection})";
    }

    /// <summary>The connection ended. <paramref name="Reason"/> has secrets masked.</summary>
    public sealed record Disconnected(string Reason, LiveFailureKind Kind) : LiveSourceChange
    {
        public override string Describe() => $"disconnected ({(Kind == LiveFailureKind.DriverFault ? "driver fault" : Kind.ToString().ToLowerInvariant())}): {Reason}";
    }

    /// <summary>
    /// A transient failure before the read began (the server facts, the session's status, a history write): try
    /// <paramref name="Attempt"/> again after <paramref name="Delay"/>. <paramref name="Error"/> is the server's error
    /// number that made it transient, or null for a failure without one (a dropped socket, a driver fault).
    /// </summary>
    public sealed record Retrying(int Attempt, int? Error, TimeSpan Delay, string Reason) : LiveSourceChange
    {
        public override string Describe() => string.Create(
            CultureInfo.InvariantCulture,
            $"retrying ({Attempt}) after {(Error is { } number ? $"error {number}" : "a failure")} in {Delay.TotalSeconds:0.0} s: {Reason}");
    }

    /// <summary>Reconnect attempt <paramref name="Attempt"/> (counted since events last flowed) after <paramref name="Delay"/>.</summary>
    public sealed record ReconnectScheduled(int Attempt, TimeSpan Delay) : LiveSourceChange
    {
        public override string Describe() =>
            string.Create(CultureInfo.InvariantCulture, $"reconnect attempt {Attempt} in {Delay.TotalSeconds:0.0} s");
    }

    /// <summary>The session was missing and has been created again.</summary>
    public sealed record SessionRecreated(string SessionName) : LiveSourceChange
    {
        public override string Describe() => $"session {SessionName} re-created";
    }

    /// <summary>Events were lost and will not come (a rolled-over file, a dropped stream); <paramref name="Description"/> says which.</summary>
    public sealed record EventsLost(string Description) : LiveSourceChange
    {
        public override string Describe() => $"gap: {Description}";
    }

    /// <summary>A row of the stream transport could not be decoded (or not wholly); <paramref name="Description"/> locates it.</summary>
    public sealed record StreamProblem(string Description) : LiveSourceChange
    {
        public override string Describe() => $"stream: {Description}";
    }

    /// <summary>Reading stopped for good; <paramref name="Reason"/> says why and what to do.</summary>
    public sealed record Stopped(string Reason) : LiveSourceChange
    {
        public override string Describe() => $"stopped: {Reason}";
    }
}
