using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>The capture session was stopped or dropped while its files were being read.</summary>
internal sealed class CaptureSessionGoneException(string sessionName, bool exists)
    : Exception($"The event session {sessionName} is {(exists ? "stopped" : "no longer on the server")}: its target gets no new events.")
{
    public string SessionName { get; } = sessionName;
}

/// <summary>SqlClient's classification, with a gone capture session as <see cref="LiveFailureKind.SessionMissing"/>.</summary>
internal sealed class EventFileFailureClassifier : ILiveFailureClassifier
{
    private readonly SqlFailureClassifier _sql = new();

    public LiveFailureKind Classify(Exception failure) =>
        failure is CaptureSessionGoneException ? LiveFailureKind.SessionMissing : _sql.Classify(failure);
}
