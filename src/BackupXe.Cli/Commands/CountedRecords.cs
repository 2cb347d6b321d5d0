using BackupXe.Core.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// A history file's records on their way to the store, one at a time: counts those read and those kept by
/// <c>--database</c>, and can take the first one early (the instance is known once the file's header is read).
/// </summary>
internal sealed class CountedRecords(IAsyncEnumerable<HistoryOperation> records, IReadOnlySet<string> wanted)
{
    private IAsyncEnumerator<HistoryOperation>? _enumerator;
    private bool _current;

    public int Read { get; private set; }

    public int KeptCount { get; private set; }

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        _enumerator = records.GetAsyncEnumerator(cancellationToken);
        _current = await _enumerator.MoveNextAsync();
    }

    /// <summary>The records <c>--database</c> keeps, counted as they pass; one pass, after <see cref="StartAsync"/>.</summary>
    public async IAsyncEnumerable<HistoryOperation> Kept()
    {
        var enumerator = _enumerator ?? throw new InvalidOperationException("Start the records first.");
        await using (enumerator)
        {
            while (_current)
            {
                var record = enumerator.Current;
                Read++;
                if (wanted.Count == 0 || record.Database is { } name && wanted.Contains(name))
                {
                    KeptCount++;
                    yield return record;
                }

                _current = await enumerator.MoveNextAsync();
            }
        }
    }

    public async Task DrainAsync(CancellationToken cancellationToken)
    {
        await foreach (var _ in Kept().WithCancellation(cancellationToken))
        {
        }
    }
}
