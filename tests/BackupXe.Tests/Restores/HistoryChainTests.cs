using BackupXe.Core.Events;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;
using BackupXe.History;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Restores;

/// <summary>
/// The chain from a history file's records alone: msdb backup set rows (RestoreChainTests' shape) imported into the
/// SQLite history and read back, some with their LSNs and some as a source without them (dbatools' default table).
/// </summary>
public sealed class HistoryChainTests : IDisposable
{
    private static readonly DateTime Night = new(2026, 11, 20, 1, 0, 0);
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-history-chain-").FullName;

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    private static HistoryOperation Backup(char type, int minutes, decimal? first, decimal? last) =>
        first is { } f && last is { } l
            ? MsdbBackupSets.ToHistory(new BackupSetRow("SalesDB", type, false, f, l, 41000000016000037m, f, "FULL", Night.AddMinutes(minutes), Night.AddMinutes(minutes + 1), 1L << 30))
            : MsdbBackupSets.ToHistory(new BackupSetRow("SalesDB", type, false, 0, 0, null, null, null, Night.AddMinutes(minutes), Night.AddMinutes(minutes + 1), 1L << 30)) with { Lsns = null, RecoveryModel = null };

    private async Task<IReadOnlyList<HistoryOperation>> StoredAsync(params HistoryOperation[] records)
    {
        var path = Path.Combine(_folder, "history.db");
        var history = new SqliteImportedHistory(path, new FakeClock(new DateTimeOffset(2026, 11, 21, 0, 0, 0, TimeSpan.Zero)));
        await history.InitializeAsync(CancellationToken.None);
        await history.ImportAsync("sql01", records, CancellationToken.None);
        return (await history.ReadAsync(null, null, CancellationToken.None)).Select(r => r.Record).ToList();
    }

    [Fact]
    public async Task Lsns_kept_in_the_history_show_a_gap_between_two_log_backups()
    {
        // Given: the full, a log backup continuing it, then one starting past the previous one's end
        var stored = await StoredAsync(
            Backup('D', 0, 41000000016000037m, 41000000017600001m),
            Backup('L', 60, 41000000008800001m, 41000000018400001m),
            Backup('L', 180, 41000000020000001m, 41000000021600001m));

        // When
        var chain = Assert.Single(HistoryChain.Check(stored));

        // Then
        Assert.False(chain.Whole);
        var gap = Assert.Single(chain.Gaps);
        Assert.Equal((41000000018400001m, 41000000020000001m), (gap.FromLsn, gap.ToLsn));
        Assert.Equal("FULL", chain.RecoveryModel);
    }

    [Fact]
    public async Task A_log_backup_without_lsns_in_the_span_of_a_gap_makes_that_link_cannot_tell_not_a_gap()
    {
        // Given: the same, with a log backup at 02:00 that a source without LSNs reported
        var stored = await StoredAsync(
            Backup('D', 0, 41000000016000037m, 41000000017600001m),
            Backup('L', 60, 41000000008800001m, 41000000018400001m),
            Backup('L', 120, null, null),
            Backup('L', 180, 41000000020000001m, 41000000021600001m));

        // When
        var chain = Assert.Single(HistoryChain.Check(stored));

        // Then
        Assert.False(chain.Whole);
        Assert.Empty(chain.Gaps);
        Assert.StartsWith("cannot tell: 1 log backup(s) from 2026-11-20 03:00 to 2026-11-20 03:00 have no LSNs", chain.Notes[0], StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_history_without_lsns_gives_no_chain_and_says_cannot_tell()
    {
        var stored = await StoredAsync(Backup('D', 0, null, null), Backup('L', 60, null, null));

        var chain = Assert.Single(HistoryChain.Check(stored));
        var plan = Assert.Single(HistoryChain.Plan(stored));

        Assert.False(chain.Whole);
        Assert.StartsWith("cannot tell: none of the 2 backup(s)", Assert.Single(chain.Notes), StringComparison.Ordinal);
        Assert.Null(plan.Full);
    }

    [Fact]
    public async Task Migration_5_keeps_the_lsns_model_and_group_in_their_columns()
    {
        var group = Guid.Parse("5a1e5000-0000-4000-8000-0000000000a9");
        await StoredAsync(Backup('L', 60, 41000000008800001m, 41000000018400001m) with { Identity = new DatabaseIdentity(null, null, group) });

        await using var connection = new SqliteConnection($"Data Source={Path.Combine(_folder, "history.db")};Mode=ReadOnly;Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT first_lsn, last_lsn, recovery_model, group_database_id, (SELECT user_version FROM pragma_user_version) FROM operations;";
        await using var reader = await command.ExecuteReaderAsync();
        Assert.True(await reader.ReadAsync());
        Assert.Equal(("41000000008800001", "41000000018400001", "FULL", group.ToString("D"), (long)SqliteHistorySchema.Version),
            (reader.GetString(0), reader.GetString(1), reader.GetString(2), reader.GetString(3), reader.GetInt64(4)));
    }
}
