using System.Data;
using System.Runtime.CompilerServices;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// The SqlClient side of the <c>file</c> transport: one pooled connection per read, one documented query.
/// Failures are left as SqlClient throws them for <see cref="SqlFailureClassifier"/>, except a resume point
/// whose file has been rolled over, which becomes <see cref="EventFileMissingException"/>.
/// </summary>
internal sealed class SqlEventFileReader(SqlConnectionFactory connections, string pathPattern) : IEventFileReader
{
    public const string ReadQuery = """
        SELECT TOP (@batch) event_data, file_name, file_offset
        FROM sys.fn_xe_file_target_read_file(@path, NULL, @initial_file_name, @initial_offset);
        """;

    /// <summary>The oldest file still there: reading from no position starts in it.</summary>
    public const string OldestFileQuery = """
        SELECT TOP (1) file_name
        FROM sys.fn_xe_file_target_read_file(@path, NULL, NULL, NULL);
        """;

    /// <summary>The pattern passed as <c>path</c>: the target's directory and file stem with <c>*</c> for the rollover suffix.</summary>
    public string PathPattern { get; } = pathPattern;

    /// <summary>
    /// The read pattern for a target whose current file is <paramref name="currentFile"/> (from
    /// sys.dm_xe_session_targets): the server appends <c>_0_&lt;number&gt;</c> before <c>.xel</c> on every
    /// rollover, so the stem plus that <c>_0_</c> and <c>*.xel</c> matches every file of the target. The
    /// <c>_0_</c> stays in the pattern: <c>stem*.xel</c> would also read the files of another session whose name
    /// merely starts with this one's (BackupXe and BackupXe2 in one log directory).
    /// </summary>
    public static string PatternFor(string currentFile)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(currentFile);
        var withoutExtension = currentFile.EndsWith(".xel", StringComparison.OrdinalIgnoreCase) ? currentFile[..^4] : currentFile;
        var last = withoutExtension.LastIndexOf('_');
        var second = last > 0 ? withoutExtension.LastIndexOf('_', last - 1) : -1;
        return second > 0 && IsDigits(withoutExtension[(last + 1)..]) && IsDigits(withoutExtension[(second + 1)..last])
            ? withoutExtension[..(last + 1)] + "*.xel"
            : withoutExtension + "*.xel";
    }

    public IAsyncEnumerable<EventFileRow> ReadAsync(EventFilePosition? after, int maxRows, CancellationToken cancellationToken) =>
        ReadAsync(PathPattern, after, maxRows, cancellationToken);

    /// <summary>One file from its start: the file's full name is a valid <c>path</c>, with no initial position.</summary>
    public IAsyncEnumerable<EventFileRow> ReadFileAsync(string file, int maxRows, CancellationToken cancellationToken) =>
        ReadAsync(file, null, maxRows, cancellationToken);

    private async IAsyncEnumerable<EventFileRow> ReadAsync(
        string path, EventFilePosition? after, int maxRows, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await using var connection = await connections.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = connections.Command(connection, ReadQuery);
        command.Parameters.Add(new SqlParameter("@batch", SqlDbType.Int) { Value = maxRows });
        command.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = path });
        command.Parameters.Add(new SqlParameter("@initial_file_name", SqlDbType.NVarChar, 260) { Value = (object?)after?.FileName ?? DBNull.Value });
        command.Parameters.Add(new SqlParameter("@initial_offset", SqlDbType.BigInt) { Value = (object?)after?.FileOffset ?? DBNull.Value });

        SqlDataReader reader;
        try
        {
            reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess, cancellationToken).ConfigureAwait(false);
        }
        catch (SqlException failure) when (IsDamagedBuffer(failure))
        {
            throw new EventFileDamagedException(after?.FileName ?? (path == PathPattern ? null : path), failure);
        }
        catch (SqlException failure) when (after is not null && IsStatementError(failure))
        {
            // Which error a vanished initial_file_name raises is not documented: ask which file is oldest instead.
            throw await MissingOrSameAsync(connection, after.FileName, failure, cancellationToken).ConfigureAwait(false);
        }

        await using (reader.ConfigureAwait(false))
        {
            var lastFile = after?.FileName ?? (path == PathPattern ? null : path);
            while (true)
            {
                bool more;
                try
                {
                    more = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
                }
                catch (SqlException failure) when (IsDamagedBuffer(failure))
                {
                    // The rows come in file order, so the damaged buffer is in the file of the last row, or a later one.
                    throw new EventFileDamagedException(lastFile, failure);
                }

                if (!more)
                {
                    break;
                }

                var row = new EventFileRow(reader.GetString(0), reader.GetString(1), reader.GetInt64(2));
                lastFile = row.FileName;
                yield return row;
            }
        }
    }

    /// <summary>
    /// True when <paramref name="candidate"/> was written after <paramref name="file"/>: the rollover numbers
    /// grow with each new file, so at equal stems the longer or larger number is the later file.
    /// </summary>
    public static bool IsLaterFile(string candidate, string file)
    {
        var a = RolloverNumber(candidate);
        var b = RolloverNumber(file);
        return a is not null && b is not null
            ? a.Length != b.Length ? a.Length > b.Length : string.CompareOrdinal(a, b) > 0
            : false;
    }

    private async Task<Exception> MissingOrSameAsync(SqlConnection connection, string fileName, SqlException failure, CancellationToken cancellationToken)
    {
        await using var probe = connections.Command(connection, OldestFileQuery);
        probe.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = PathPattern });
        var oldest = await probe.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) as string;
        return oldest is not null && IsLaterFile(oldest, fileName)
            ? new EventFileMissingException(fileName, failure)
            : failure;
    }

    private static bool IsDamagedBuffer(SqlException failure) =>
        failure.Errors.Cast<SqlError>().Any(e => e.Number == SqlErrorNumbers.EventFileDamagedBuffer);

    // A statement error leaves the connection usable; one of class 20+ has closed it, and the probe could not run.
    private static bool IsStatementError(SqlException failure) => failure.Class < 20;

    private static string? RolloverNumber(string file)
    {
        var name = file.EndsWith(".xel", StringComparison.OrdinalIgnoreCase) ? file[..^4] : file;
        var last = name.LastIndexOf('_');
        var number = last >= 0 ? name[(last + 1)..] : string.Empty;
        return IsDigits(number) ? number.TrimStart('0').PadLeft(1, '0') : null;
    }

    private static bool IsDigits(string text) => text.Length > 0 && text.All(char.IsAsciiDigit);
}
