using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Client;

/// <summary>
/// One line for a failure, for a console or a log: the server's own words with the error number, the driver's
/// inner reason for network failures, secrets masked, line breaks folded. Never a stack trace.
/// </summary>
public static class SqlFailureText
{
    public static string Describe(Exception failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        string text;
        if (failure is SqlException sql)
        {
            var first = sql.Errors.Count > 0 ? sql.Errors[0] : null;
            var number = first?.Number ?? sql.Number;
            var hint = Hint(sql);
            text = $"{FirstLine(first?.Message ?? sql.Message)} (error {number}{(hint is null ? string.Empty : "; " + hint)})";
            if (number == SqlErrorNumbers.DriverError && sql.InnerException is { } inner && !string.IsNullOrWhiteSpace(inner.Message))
            {
                text += $" [{FirstLine(inner.Message)}]";
            }
        }
        else if (failure is OperationCanceledException)
        {
            text = "cancelled";
        }
        else if (failure is IndexOutOfRangeException or ArgumentOutOfRangeException or NullReferenceException or InvalidCastException or OverflowException)
        {
            // The driver's own fault on a reply it did not expect (a malformed PRELOGIN): its message alone says nothing.
            text = $"the server's reply could not be understood: it is probably not SQL Server, or something between changed the reply (the driver failed with {failure.GetType().Name}: {FirstLine(failure.Message)})";
        }
        else
        {
            text = FirstLine(failure.Message);
        }

        return ConnectionStringRedactor.RedactMessage(text);
    }

    /// <summary>
    /// One sentence with what to do when the connection itself was refused or broke (the driver's error 0 at
    /// connection-closing severity, or a network error it surfaces as a number), or null for any other failure, which
    /// <see cref="Describe"/> says best. The driver's own words are for <c>--verbose</c>: they name its internals
    /// (a provider, a TCP error code), not what a DBA can change.
    /// </summary>
    public static string? ConnectionAdvice(Exception failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        var number = failure switch
        {
            SqlException sql => sql.Errors.Cast<SqlError>()
                .Where(e => (e.Number == SqlErrorNumbers.DriverError && e.Class >= ConnectionClosingClass) || SqlErrorNumbers.NetworkTransients.Contains(e.Number))
                .Select(e => (int?)e.Number)
                .FirstOrDefault(),
            _ => null,
        };
        return number is { } n
            ? $"the connection was refused or broke (error {n}): check that SQL Server runs and accepts TCP connections under that name and port (host,port; host\\instance also needs the SQL Browser on UDP 1434) and that no firewall is in between; --verbose shows the driver's own message"
            : null;
    }

    /// <summary>Severities from 20 close the connection (Database engine error severities).</summary>
    private const byte ConnectionClosingClass = 20;

    /// <summary>
    /// A fault raised inside the driver, said as that: its type and its own text, and what BackupXe does about it.
    /// Never a login hint: whatever its cause, the login is not it.
    /// </summary>
    public static string DriverFault(Exception failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        return ConnectionStringRedactor.RedactMessage(
            $"the SqlClient driver failed inside itself ({failure.GetType().Name}: {FirstLine(failure.Message)}); a new connection resumes at the last position read");
    }

    private static string? Hint(SqlException sql)
    {
        var numbers = sql.Errors.Cast<SqlError>().Select(e => e.Number).ToList();
        if (numbers.Any(SqlErrorNumbers.IsSqlClientTransient))
        {
            // 4060 comes with 18456 while the login's database is recovering or failing over: not a wrong password.
            return numbers.Contains(SqlErrorNumbers.CannotOpenDatabase)
                ? "the login's database could not be opened (recovering or failing over); BackupXe retries this, and it lasted longer than the retries"
                : "SqlClient documents this as transient; BackupXe retries it, and it lasted longer than the retries";
        }

        if (numbers.Any(SqlErrorNumbers.IsLoginRefused))
        {
            return "check the login name, the password variable and that the login may connect; the ERRORLOG has the state that says why";
        }

        if (numbers.Any(SqlErrorNumbers.IsPermissionDenied))
        {
            return "missing permission; docs/permissions.md lists what BackupXe needs";
        }

        if (numbers.Contains(SqlErrorNumbers.Timeout))
        {
            return "timed out; raise --connect-timeout or --command-timeout if the server is slow to answer";
        }

        return null;
    }

    private static string FirstLine(string message)
    {
        var trimmed = message.Trim();
        var end = trimmed.IndexOfAny(['\r', '\n']);
        return end < 0 ? trimmed : trimmed[..end].TrimEnd();
    }
}
