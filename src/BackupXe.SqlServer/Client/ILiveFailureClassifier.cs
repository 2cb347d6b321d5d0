namespace BackupXe.SqlServer.Client;

/// <summary>What a failed connection means for the next one.</summary>
public enum LiveFailureKind
{
    /// <summary>Network blip, failover, server restart, timeout: reconnect after a back-off.</summary>
    Transient,

    /// <summary>The event session is gone (dropped, or never created): re-create it or tell the user.</summary>
    SessionMissing,

    /// <summary>Login failed, permission denied, certificate rejected: reconnecting cannot fix it.</summary>
    Fatal,

    /// <summary>
    /// The driver itself failed (an ArgumentOutOfRangeException or InvalidOperationException thrown inside SqlClient):
    /// not the server's answer and not the login's fault. Reconnect, resuming at the last position, as for a transient one.
    /// </summary>
    DriverFault,
}

/// <summary>
/// Sorts exceptions from <see cref="Live.ILiveEventStream"/> or <see cref="ISessionInstaller"/>.
/// <see cref="Client.SqlFailureClassifier"/> decides from SqlException numbers and classes.
/// </summary>
public interface ILiveFailureClassifier
{
    LiveFailureKind Classify(Exception failure);
}

/// <summary>Creates the capture session again, e.g. by running <see cref="Sessions.SessionScripts.RenderInstall"/>.</summary>
public interface ISessionInstaller
{
    Task InstallAsync(CancellationToken cancellationToken);
}
