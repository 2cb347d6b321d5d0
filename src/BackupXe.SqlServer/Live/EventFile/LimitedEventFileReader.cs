using System.Runtime.CompilerServices;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// An <see cref="IEventFileReader"/> whose every read (connection, query and the rows it hands on) runs in a slot of
/// the daemon-wide <see cref="ReadConcurrencyLimit"/>.
/// </summary>
internal sealed class LimitedEventFileReader(IEventFileReader inner, ReadConcurrencyLimit limit) : IEventFileReader
{
    public async IAsyncEnumerable<EventFileRow> ReadAsync(
        EventFilePosition? after, int maxRows, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var lease = await limit.EnterAsync(cancellationToken).ConfigureAwait(false);
        await foreach (var row in inner.ReadAsync(after, maxRows, cancellationToken).ConfigureAwait(false))
        {
            yield return row;
        }
    }

    public async IAsyncEnumerable<EventFileRow> ReadFileAsync(string file, int maxRows, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var lease = await limit.EnterAsync(cancellationToken).ConfigureAwait(false);
        await foreach (var row in inner.ReadFileAsync(file, maxRows, cancellationToken).ConfigureAwait(false))
        {
            yield return row;
        }
    }
}
