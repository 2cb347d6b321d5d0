using System.Buffers;
using System.Data;
using System.Runtime.CompilerServices;
using BackupXe.Sources.Xel;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Live.EventStream;

/// <summary>
/// The SqlClient side of the <c>stream</c> transport: one connection running <c>sys.fn_MSxe_read_event_stream</c> with
/// source = the session name and source_option 0 (a started session's event stream), as Microsoft's current page of the
/// function documents it; the SQL Server 2012 page showed only the session name. Its columns are <c>type</c> int and
/// <c>data</c> image, read here as a stream. The result never ends while the session runs: rows arrive as the session
/// dispatches buffers. Failures are left as SqlClient throws them for the classifier.
/// A row is read into memory only up to <paramref name="maxRowBytes"/> (the largest log buffer the decoder accepts),
/// so no row can make the reader hold more than one buffer's worth.
/// </summary>
internal sealed class SqlEventStreamReader(SqlConnectionFactory connections, string sessionName, int maxRowBytes = XelDecoder.MaxBufferBytes)
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
                yield return await reader.IsDBNullAsync(1, cancellationToken).ConfigureAwait(false)
                    ? new EventStreamRow(type, null)
                    : await ReadDataAsync(type, reader, cancellationToken).ConfigureAwait(false);
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

    /// <summary>The data column as a stream, copied up to the cap; past it the rest of the row is left unread.</summary>
    private async Task<EventStreamRow> ReadDataAsync(int type, SqlDataReader reader, CancellationToken cancellationToken)
    {
        await using var data = reader.GetStream(1);
        using var copy = new MemoryStream();
        var chunk = ArrayPool<byte>.Shared.Rent(64 * 1024);
        try
        {
            int read;
            while ((read = await data.ReadAsync(chunk, cancellationToken).ConfigureAwait(false)) > 0)
            {
                if (copy.Length + read > maxRowBytes)
                {
                    return new EventStreamRow(type, null, Oversized: true);
                }

                copy.Write(chunk, 0, read);
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(chunk);
        }

        return new EventStreamRow(type, copy.ToArray());
    }
}
