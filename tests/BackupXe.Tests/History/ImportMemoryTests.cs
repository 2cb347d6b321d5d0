using BackupXe.Core.History;
using BackupXe.History;
using BackupXe.Tests.Cli;
using Microsoft.Data.Sqlite;
using Xunit;
using static BackupXe.Tests.History.HistoryOperations;

namespace BackupXe.Tests.History;

/// <summary>
/// What an import holds grows with the records around the one it stores, not with the file: the heap measured at the
/// end of the records (before the commit) is about the same for 1,000 and 8,000. Alone, since the heap is the process's.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class ImportMemoryTests : IDisposable
{
    // 7,000 more records held would be over 10 MB (a record and its JSON are about 2 KB); the window is a few hundred rows.
    private const long GrowthBound = 4L * 1024 * 1024;

    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);
    private readonly List<string> _paths = [];

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        foreach (var path in _paths)
        {
            foreach (var file in new[] { path, path + "-wal", path + "-shm" })
            {
                File.Delete(file);
            }
        }
    }

    [Fact]
    public async Task The_memory_an_import_holds_does_not_grow_with_the_records_of_the_file()
    {
        // Given
        var small = await HeapAtLastRecordAsync(1_000);

        // When
        var large = await HeapAtLastRecordAsync(8_000);

        // Then
        Assert.True(large - small < GrowthBound, $"1,000 records: {small:N0} bytes held; 8,000: {large:N0}");
    }

    private async Task<long> HeapAtLastRecordAsync(int count)
    {
        var path = Path.Combine(Path.GetTempPath(), $"backupxe-import-memory-{Guid.NewGuid():N}.db");
        _paths.Add(path);
        var history = new SqliteImportedHistory(path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        long heap = 0;

        async IAsyncEnumerable<HistoryOperation> Records()
        {
            for (var i = 0; i < count; i++)
            {
                await Task.Yield();
                yield return Msdb("Sales", Night.AddMinutes(5 * i), 30, GiB, $@"X:\b\Sales_LOG_{i}.trn");
            }

            // Every record stored, the transaction still open: what the import holds now is what it kept.
            heap = GC.GetTotalMemory(forceFullCollection: true);
        }

        var result = await history.ImportAsync("PROD01", Records(), CancellationToken.None);
        Assert.Equal(count, result.Added);
        return heap;
    }
}
