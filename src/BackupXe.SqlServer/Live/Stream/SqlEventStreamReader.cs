using System.Data;
using System.Runtime.CompilerServices;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer;

/// <summary>
/// The SqlClient side of the <c>stream</c> transport: one connection running <c>sys.fn_MSxe_read_event_stream</c> in
/// live mode (option 0), the call XELite's live streamer makes. The result never ends while the session runs: rows
/// arrive as the session dispatches buffers. Failures are left as SqlClient throws them for the classifier.
/// </summary>
public sealed class SqlEventStreamReader(SqlConnectionFactory connections, string sessionName)
{
    public const string Query = "SELECT type, data FROM sys.fn_MSxe_read_event_stream(@session, 0);";

    /// <param name="onOpened">Called once the server has accepted the query: the stream is live from then on.</param>
    public async IAsyncEnumerable<EventStreamRow> ReadAsync(Action onOpened, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await using var connection = await connections.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = connections.Command(connection, Query);
        // A live session is quiet between dispatches for as long as nothing happens: no command timeout.
        command.CommandTimeout = 0;
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = sessionName });
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess, cancellationToken).ConfigureAwait(false);
        onOpened();
        var ended = false;
        try
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var type = reader.GetInt32(0);
                var data = await reader.IsDBNullAsync(1, cancellationToken).ConfigureAwait(false) ? null : reader.GetFieldValue<byte[]>(1);
                yield return new EventStreamRow(type, data);
            }

            ended = true;
        }
        finally
        {
            if (!ended)
            {
                // Disposing the reader of an endless result drains it, which never ends: ATTENTION first
                // (docs/development.md, measured against the TDS double).
                command.Cancel();
            }
        }
    }
}
