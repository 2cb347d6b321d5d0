using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;
using BackupXe.History;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.History;

/// <summary>
/// Tune results in the SQLite history (migrations 2 and 3, versioned by the file's user_version): stored into a file
/// from before the migrations without losing a row, the restore trials with them into a file of version 2 without losing
/// its tunes, read back per database, read from an old file as none without changing it, and set beside a later full
/// backup of the database.
/// </summary>
public sealed class TuneHistoryTests : IDisposable
{
    private static readonly DateTime Tuned = new(2024, 4, 25, 14, 0, 0, DateTimeKind.Utc);
    private readonly TempDirectory _directory = new();
    private readonly FakeClock _time = new();

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        _directory.Dispose();
    }

    internal static TuneRecord Tune(string database = "Sales", DateTime? at = null, double best = 850, string instance = "SQL01") => new()
    {
        Instance = instance,
        Database = database,
        TunedAt = at ?? Tuned,
        BestOptions = "2 files, BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB, NO_COMPRESSION",
        BestMBps = best,
        BaselineMBps = 600,
        ReadCeilingMBps = 900,
        Gain = (best / 600) - 1,
        GainUncertainty = 0.06,
        LimitingSide = "target",
        Trials = 7,
        Runs = 11,
        StopReason = "Two steps in a row gained under 3%: the best trial is the optimum within reach.",
        RecommendedSql = "BACKUP DATABASE [Sales]\nTO DISK = N'X:\\Sales_1.bak'\nWITH BUFFERCOUNT = 64;",
    };

    /// <summary>A history as a build before the migrations wrote it: the daemon's table, one operation, user_version 0.</summary>
    private async Task<string> OldFileAsync()
    {
        var path = _directory.File("history.db");
        var store = new SqliteHistoryStore(path, _time);
        await store.InitializeAsync(CancellationToken.None);
        await store.SaveAsync("SQL01", new OperationReport
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = "Sales",
            Start = new DateTime(2024, 4, 20, 1, 30, 0, DateTimeKind.Utc),
            End = new DateTime(2024, 4, 20, 1, 40, 0, DateTimeKind.Utc),
            Status = OperationStatus.Completed,
        }, CancellationToken.None);
        return path;
    }

    private static async Task<T> ScalarAsync<T>(string path, string sql)
    {
        await using var connection = new SqliteConnection($"Data Source={path};Mode=ReadOnly;Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        return (T)Convert.ChangeType((await command.ExecuteScalarAsync())!, typeof(T), System.Globalization.CultureInfo.InvariantCulture);
    }

    [Fact]
    public async Task Storing_a_tune_migrates_a_file_from_before_the_numbering_to_version_3_and_keeps_its_rows()
    {
        var path = await OldFileAsync();
        Assert.Equal(0L, await ScalarAsync<long>(path, "PRAGMA user_version;"));

        var added = await new SqliteHistoryStore(path, _time).SaveTuneAsync(Tune(), CancellationToken.None);

        Assert.True(added);
        Assert.Equal((long)SqliteHistorySchema.Version, await ScalarAsync<long>(path, "PRAGMA user_version;"));
        Assert.Equal(1L, await ScalarAsync<long>(path, "SELECT COUNT(*) FROM operations;"));
        Assert.Equal("sources,history_json", await ScalarAsync<string>(path, "SELECT group_concat(name, ',') FROM pragma_table_info('operations') WHERE name IN ('sources', 'history_json');"));
        var read = await new SqliteTuneHistory(path, _time).ReadAsync(null, null, 10, CancellationToken.None);
        Assert.Equal(ReportJson.Serialize(Tune()), ReportJson.Serialize(Assert.Single(read.Records)));
        Assert.Empty(read.Problems);
    }

    [Fact]
    public async Task A_file_that_had_the_import_columns_before_the_numbering_is_migrated_without_adding_them_twice()
    {
        var path = await OldFileAsync();
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = "ALTER TABLE operations ADD COLUMN sources TEXT NULL; ALTER TABLE operations ADD COLUMN history_json TEXT NULL;";
            await command.ExecuteNonQueryAsync();
        }

        var store = new SqliteHistoryStore(path, _time);
        Assert.True(await store.SaveTuneAsync(Tune(), CancellationToken.None));
        Assert.False(await store.SaveTuneAsync(Tune(), CancellationToken.None));

        Assert.Equal((long)SqliteHistorySchema.Version, await ScalarAsync<long>(path, "PRAGMA user_version;"));
        Assert.Equal(1L, await ScalarAsync<long>(path, "SELECT COUNT(*) FROM tune_runs;"));
    }

    /// <summary>A tune with restore trials as <c>tune --restore</c> stores it: defaults twice, 4 MB, then 32 buffers.</summary>
    internal static TuneRecord WithRestore(DateTime? at = null) => Tune(at: at) with
    {
        Restore = new RestoreTuneRecord
        {
            BestOptions = "BUFFERCOUNT 32, MAXTRANSFERSIZE 4096 KB",
            BestMBps = 157.9,
            DefaultsMBps = 57.1,
            Gain = 1.7653,
            InstantFileInitialization = false,
            StopReason = "Restore: two steps in a row gained under 3%.",
            Trials =
            [
                new RestoreTrialRecord { Number = 1, Options = "default BUFFERCOUNT, default MAXTRANSFERSIZE", RateMBps = 57.1, Runs = 2, ZeroingSeconds = 2, Limit = "buffers" },
                new RestoreTrialRecord { Number = 2, Options = "default BUFFERCOUNT, MAXTRANSFERSIZE 4096 KB", RateMBps = 121.3, Runs = 1, ZeroingSeconds = 2, Limit = "buffers" },
                new RestoreTrialRecord { Number = 3, Options = "BUFFERCOUNT 32, MAXTRANSFERSIZE 4096 KB", RateMBps = 157.9, Runs = 1, ZeroingSeconds = 2, Limit = "backup-read" },
                new RestoreTrialRecord
                {
                    Number = 4, Options = "BUFFERCOUNT 64, MAXTRANSFERSIZE 4096 KB", RateMBps = 120.4, Runs = 1, Limit = "backup-read",
                    OptionsDiffer = true, Differences = ["BUFFERCOUNT asked 64, the server used 6"],
                },
            ],
            NotDropped = ["DROP DATABASE [backupxe_tune_1a2b3c4d_r04];"],
        },
    };

    /// <summary>A history as a build with migration 2 wrote it: user_version 2, tune_runs without the restore columns, one tune in it.</summary>
    private async Task<string> Version2FileAsync()
    {
        var path = await OldFileAsync();
        await using var connection = new SqliteConnection($"Data Source={path};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = """
            ALTER TABLE operations ADD COLUMN sources TEXT NULL;
            ALTER TABLE operations ADD COLUMN history_json TEXT NULL;
            CREATE TABLE tune_runs (
                id                INTEGER PRIMARY KEY,
                instance_name     TEXT    NOT NULL,
                database_name     TEXT    NOT NULL,
                tuned_at          TEXT    NOT NULL,
                best_mbps         REAL    NULL,
                baseline_mbps     REAL    NULL,
                read_ceiling_mbps REAL    NULL,
                tune_json         TEXT    NOT NULL,
                recorded_at       TEXT    NOT NULL
            );
            CREATE UNIQUE INDEX ux_tune_runs_identity ON tune_runs (instance_name, database_name COLLATE NOCASE, tuned_at);
            INSERT INTO tune_runs (instance_name, database_name, tuned_at, best_mbps, baseline_mbps, read_ceiling_mbps, tune_json, recorded_at)
            VALUES ('SQL01', 'Sales', '2024-04-25T14:00:00.0000000', 850, 600, 900, $json, '2024-04-25T14:00:01.0000000');
            PRAGMA user_version = 2;
            """;
        command.Parameters.AddWithValue("$json", ReportJson.Serialize(Tune()));
        await command.ExecuteNonQueryAsync();
        return path;
    }

    [Fact]
    public async Task Storing_restore_trials_migrates_a_version_2_file_keeps_its_tunes_and_reads_both_back()
    {
        var path = await Version2FileAsync();

        var added = await new SqliteHistoryStore(path, _time).SaveTuneAsync(WithRestore(Tuned.AddDays(1)), CancellationToken.None);

        Assert.True(added);
        Assert.Equal((long)SqliteHistorySchema.Version, await ScalarAsync<long>(path, "PRAGMA user_version;"));
        Assert.Equal(2L, await ScalarAsync<long>(path, "SELECT COUNT(*) FROM tune_runs;"));
        Assert.Equal(1L, await ScalarAsync<long>(path, "SELECT COUNT(*) FROM tune_runs WHERE restore_best_mbps IS NULL AND restore_defaults_mbps IS NULL AND tuned_at = '2024-04-25T14:00:00.0000000';"));
        Assert.Equal(157.9, await ScalarAsync<double>(path, "SELECT restore_best_mbps FROM tune_runs WHERE restore_best_mbps IS NOT NULL;"));
        Assert.Equal(57.1, await ScalarAsync<double>(path, "SELECT restore_defaults_mbps FROM tune_runs WHERE restore_defaults_mbps IS NOT NULL;"));
        var read = await new SqliteTuneHistory(path, _time).ReadAsync(null, null, 10, CancellationToken.None);
        Assert.Empty(read.Problems);
        Assert.Equal(2, read.Records.Count);
        Assert.Equal(ReportJson.Serialize(WithRestore(Tuned.AddDays(1))), ReportJson.Serialize(read.Records[0]));
        Assert.Null(read.Records[1].Restore);
        Assert.Equal(4, read.Records[0].Restore!.Trials.Count);
    }

    [Fact]
    public async Task Reading_tunes_from_a_file_without_them_finds_none_and_changes_nothing()
    {
        var path = await OldFileAsync();
        SqliteConnection.ClearAllPools();
        var before = await File.ReadAllBytesAsync(path);

        var read = await new SqliteTuneHistory(path, _time).ReadAsync(null, null, 10, CancellationToken.None);
        var last = await new SqliteHistoryStore(path, _time).LastTuneAsync("SQL01", "Sales", DateTime.MaxValue, CancellationToken.None);

        Assert.Empty(read.Records);
        Assert.Null(last);
        Assert.Equal(before, await File.ReadAllBytesAsync(path));
        Assert.Equal(0L, await ScalarAsync<long>(path, "PRAGMA user_version;"));
    }

    [Fact]
    public async Task Tunes_are_read_newest_first_per_database_without_case_and_the_last_one_before_a_backup_is_found()
    {
        var path = await OldFileAsync();
        var store = new SqliteHistoryStore(path, _time);
        await store.SaveTuneAsync(Tune(), CancellationToken.None);
        await store.SaveTuneAsync(Tune(at: Tuned.AddDays(3), best: 900), CancellationToken.None);
        await store.SaveTuneAsync(Tune("HR", Tuned.AddDays(1)), CancellationToken.None);
        await store.SaveTuneAsync(Tune(at: Tuned.AddDays(2), instance: "SQL02"), CancellationToken.None);

        var sales = await new SqliteTuneHistory(path, _time).ReadAsync("SQL01", ["sales"], 10, CancellationToken.None);
        var before = await store.LastTuneAsync("SQL01", "SALES", Tuned.AddDays(2), CancellationToken.None);

        Assert.Equal([900.0, 850.0], sales.Records.Select(r => r.BestMBps!.Value));
        Assert.Equal(Tuned, before!.TunedAt);
    }

    [Fact]
    public async Task A_tune_row_that_cannot_be_read_is_named_and_skipped()
    {
        var path = _directory.File("history.db");
        var store = new SqliteHistoryStore(path, _time);
        await store.SaveTuneAsync(Tune(), CancellationToken.None);
        await store.SaveTuneAsync(Tune("HR"), CancellationToken.None);
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = "UPDATE tune_runs SET tune_json = '{not json' WHERE database_name = 'HR';";
            await command.ExecuteNonQueryAsync();
        }

        var read = await new SqliteTuneHistory(path, _time).ReadAsync(null, null, 10, CancellationToken.None);

        Assert.Equal("Sales", Assert.Single(read.Records).Database);
        Assert.Contains("the stored tune cannot be read", Assert.Single(read.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_later_full_backup_of_the_database_is_shown_beside_its_last_tune_and_a_log_backup_is_not()
    {
        var path = await OldFileAsync();
        var store = new SqliteHistoryStore(path, _time);
        await store.SaveTuneAsync(Tune(), CancellationToken.None);
        var detector = new StoredBaselines(store, new Core.Baselines.BaselineComparisonSettings());
        var full = new OperationReport
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = "Sales",
            Start = Tuned.AddDays(1),
            End = Tuned.AddDays(1).AddMinutes(10),
            Status = OperationStatus.Completed,
            BytesProcessed = 600L * 1024 * 1024 * 600,
            ThroughputMBps = 600,
            DurationSeconds = 600,
        };

        var comparison = await detector.CompareAsync("SQL01", full, CancellationToken.None);
        var log = await detector.CompareAsync("SQL01", full with { Scope = OperationScope.Log }, CancellationToken.None);
        var earlier = await detector.CompareAsync("SQL01", full with { Start = Tuned.AddDays(-1), End = Tuned.AddDays(-1).AddMinutes(10) }, CancellationToken.None);

        Assert.Equal(Tuned, comparison!.LastTune!.TunedAt);
        var line = Assert.Single(BaselineLines.Of(comparison), l => l.StartsWith("last tuned", StringComparison.Ordinal));
        Assert.Equal("last tuned 2024-04-25 14:00 UTC: best 2 files, BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB, NO_COMPRESSION at 850 MB/s (+42% ± 6% over its 600 MB/s baseline); this run: 600 MB/s, 71% of the tuned rate", line);
        Assert.Null(log!.LastTune);
        Assert.Null(earlier!.LastTune);
    }
}
