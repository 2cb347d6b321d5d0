using BackupXe.History;
using Xunit;
using static BackupXe.Tests.History.HistoryOperations;

namespace BackupXe.Tests.History;

public sealed class StoredRowWindowTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);

    [Fact]
    public void An_import_keeps_the_rows_near_the_records_it_stores_not_every_row_it_read()
    {
        // Given a log backup every 5 minutes for 70 days, each read back as the import goes
        var window = new StoredRowWindow();
        var most = 0;

        // When
        for (var i = 0; i < 20_000; i++)
        {
            var record = Msdb("Sales", Night.AddMinutes(5 * i), 30, GiB, $@"X:\b\Sales_{i}.trn");
            window.Storing(record);
            window.Keep(i, record);
            most = Math.Max(most, window.Count);
        }

        // Then: about the rows of the last days (288 a day), not the 20,000
        Assert.InRange(most, 1, 2_048);
        Assert.True(window.TryGet(19_999, out var last));
        Assert.Equal("Sales", last!.Database);
        Assert.False(window.TryGet(0, out _));
    }

    [Fact]
    public void Rows_of_one_dense_day_are_bounded_too()
    {
        // Given 40,000 backups within one day, all near each other
        var window = new StoredRowWindow();
        var most = 0;

        // When
        for (var i = 0; i < 40_000; i++)
        {
            var record = Msdb($"Db{i}", Night.AddSeconds(i), 1, GiB);
            window.Storing(record);
            window.Keep(i, record);
            most = Math.Max(most, window.Count);
        }

        // Then
        Assert.InRange(most, 1, StoredRowWindow.MaxRows);
    }

    [Fact]
    public void A_row_that_could_not_be_read_is_kept_as_such_until_the_next_prune()
    {
        var window = new StoredRowWindow();
        window.Storing(Msdb("Sales", Night, 60, GiB));

        window.Keep(7, null);

        Assert.True(window.TryGet(7, out var record));
        Assert.Null(record);
    }
}
