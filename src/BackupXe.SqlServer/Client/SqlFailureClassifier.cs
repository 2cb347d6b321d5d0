using System.Net.Sockets;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Client;

/// <summary>
/// Sorts failures from SqlClient into transient (reconnect after a back-off), session-missing (re-create the
/// session) and fatal (tell the user; retrying cannot help), from the error numbers and classes in
/// <see cref="SqlErrorNumbers"/>. Every error of a SqlException is looked at, not only the first.
/// </summary>
public sealed class SqlFailureClassifier : ILiveFailureClassifier
{
    /// <summary>Connection-level severities: 20 and above close the connection (Database engine error severities).</summary>
    private const byte ConnectionClosingClass = 20;

    public LiveFailureKind Classify(Exception failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        return failure switch
        {
            SqlException sql => Classify(sql.Errors.Cast<SqlError>().Select(e => (e.Number, e.Class))),
            // The connection was torn down under the driver; it says so with these, not with a SqlException.
            IOException or SocketException or TimeoutException => LiveFailureKind.Transient,
            InvalidOperationException when failure.InnerException is not null => Classify(failure.InnerException),
            // Thrown inside the driver itself (measured: ArgumentOutOfRangeException on a reply it mis-reads): whatever
            // the cause, the login is not it, and a fresh connection is the safe reaction.
            _ when IsDriverFault(failure) => LiveFailureKind.DriverFault,
            // A broken pooled connection: "Invalid operation. The connection is closed."
            InvalidOperationException => LiveFailureKind.Transient,
            _ => LiveFailureKind.Fatal,
        };
    }

    /// <summary>
    /// The kind for a list of (number, class) pairs, as SqlException.Errors holds them. SqlClient's own rule comes
    /// first: a reply with any number it documents as transient is transient (a server that cannot open the login's
    /// database sends 4060 together with 18456, and the pair is a failover, not a refusal).
    /// </summary>
    public static LiveFailureKind Classify(IEnumerable<(int Number, byte Class)> errors)
    {
        var list = errors as IReadOnlyCollection<(int Number, byte Class)> ?? errors.ToList();
        if (list.Any(e => SqlErrorNumbers.IsSqlClientTransient(e.Number)))
        {
            return LiveFailureKind.Transient;
        }

        var sawTransient = false;
        var sawMissing = false;
        var any = false;
        foreach (var (number, @class) in list)
        {
            any = true;
            switch (Classify(number, @class))
            {
                // One refusal decides: a login or permission problem is not fixed by trying again.
                case LiveFailureKind.Fatal:
                    return LiveFailureKind.Fatal;
                case LiveFailureKind.SessionMissing:
                    sawMissing = true;
                    break;
                default:
                    sawTransient = true;
                    break;
            }
        }

        return !any ? LiveFailureKind.Transient
            : sawMissing ? LiveFailureKind.SessionMissing
            : sawTransient ? LiveFailureKind.Transient
            : LiveFailureKind.Fatal;
    }

    /// <summary>
    /// An exception of the kinds a program's own defect raises (argument out of range, invalid operation, index, cast,
    /// null) thrown from inside Microsoft.Data.SqlClient, not by a server error: the driver's own fault.
    /// </summary>
    public static bool IsDriverFault(Exception failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        if (failure is not (ArgumentException or InvalidOperationException or IndexOutOfRangeException or NullReferenceException
            or InvalidCastException or OverflowException) || failure is ObjectDisposedException)
        {
            return false;
        }

        // The frame that threw is the trace's first; its type's namespace says whose code it was (the trace is kept in a
        // native build too, where reflection over the throwing method is not).
        // "at" is translated in some cultures, so the method is the frame's second word.
        var firstFrame = failure.StackTrace?.TrimStart().Split('\n', 2)[0] ?? string.Empty;
        var method = firstFrame.Split(' ', 3, StringSplitOptions.RemoveEmptyEntries) is { Length: >= 2 } words ? words[1] : string.Empty;
        return method.StartsWith("Microsoft.Data.SqlClient.", StringComparison.Ordinal)
            || method.StartsWith("Microsoft.Data.ProviderBase.", StringComparison.Ordinal);
    }

    /// <summary>The kind of one error.</summary>
    public static LiveFailureKind Classify(int number, byte @class)
    {
        if (SqlErrorNumbers.DriverDocumentedTransients.Contains(number))
        {
            return LiveFailureKind.Transient;
        }

        if (SqlErrorNumbers.IsLoginRefused(number) || SqlErrorNumbers.IsPermissionDenied(number))
        {
            return LiveFailureKind.Fatal;
        }

        switch (number)
        {
            case SqlErrorNumbers.EventObjectNotFound:
            case SqlErrorNumbers.EventSessionStoppedOrDropped:
            case SqlErrorNumbers.EventSessionNotFound:
            // ALTER/DROP EVENT SESSION on a session that is not there; a real permission gap shows up again as a
            // permission error when the session is re-created, and is fatal then.
            case SqlErrorNumbers.DoesNotExistOrNoPermission:
                return LiveFailureKind.SessionMissing;
            // Another installer won a race, or the session is already in the wanted state: running again settles it.
            case SqlErrorNumbers.EventSessionAlreadyExists:
            case SqlErrorNumbers.EventSessionAlreadyStarted:
            case SqlErrorNumbers.EventSessionAlreadyStopped:
            case SqlErrorNumbers.EventStreamTooManyOutstanding:
            case SqlErrorNumbers.EventStreamInternalError:
            // An OS read error can pass; a damaged buffer reaches here only while its file is the one being written (the
            // tail otherwise goes on at the current file and reports the gap), and is retried until the target rolls over.
            case SqlErrorNumbers.EventFileOsReadError:
            case SqlErrorNumbers.EventFileDamagedBuffer:
            case SqlErrorNumbers.DatabaseOffline:
            case SqlErrorNumbers.DeadlockVictim:
            case SqlErrorNumbers.Timeout:
                return LiveFailureKind.Transient;
            case SqlErrorNumbers.DriverError:
                // Measured: Class 20 for refused/closed/dropped connections, Class 11 for a cancelled command.
                return LiveFailureKind.Transient;
        }

        if (SqlErrorNumbers.NetworkTransients.Contains(number) || SqlErrorNumbers.CloudTransients.Contains(number))
        {
            return LiveFailureKind.Transient;
        }

        // Severity 20+ means the server closed the connection (a restart, a failover): try again.
        return @class >= ConnectionClosingClass ? LiveFailureKind.Transient : LiveFailureKind.Fatal;
    }
}
