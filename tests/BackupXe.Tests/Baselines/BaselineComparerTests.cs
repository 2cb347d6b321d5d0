using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Tests.History;
using Xunit;

namespace BackupXe.Tests.Baselines;

/// <summary>
/// The history rule on generated series: ten usual nightly full backups of [Sales] to one share (about 400 MB/s,
/// BUFFERCOUNT 50, compressed, 100 GB), then the runs under test.
/// </summary>
public sealed class BaselineComparerTests
{
    private const long GiB = 1L << 30;
    private const string Share = @"\\nas01\backups";
    private static readonly DateTime Night = new(2026, 11, 1, 1, 0, 0, DateTimeKind.Utc);
    private static readonly double[] Usual = [400, 410, 395, 420, 405, 390, 415, 400, 408, 398];

    private static HistoryOperation Run(
        DateTime start, double mbps, int bufferCount = 50, bool compression = true, string database = "Sales",
        string path = Share + @"\Sales_FULL.bak", long bytes = 100 * GiB, long? logBytes = null)
        => HistoryOperations.Captured(database, start, mbps, bytes, path,
            new HistoryOptions { BufferCount = bufferCount, MaxTransferSizeBytes = 4 << 20, Compression = compression }, logBytes);

    private static List<ComparableRun> Nights(IEnumerable<double> rates, int firstNight = 0)
        => rates.Select((rate, i) => ComparableRun.Of(Run(Night.AddDays(firstNight + i), rate))).ToList();

    private static BaselineComparisonReport Compare(HistoryOperation current, IEnumerable<ComparableRun> history)
        => BaselineComparer.Compare(ComparableRun.Of(current), "SQL01", [.. history], new BaselineComparisonSettings());

    [Fact]
    public void A_run_three_times_slower_than_its_median_is_slower_since_the_first_slow_run_and_names_the_dropped_BUFFERCOUNT()
    {
        var history = Nights(Usual);
        history.Add(ComparableRun.Of(Run(Night.AddDays(10), 136, bufferCount: 7)));
        history.Add(ComparableRun.Of(Run(Night.AddDays(11), 131, bufferCount: 7)));

        var result = Compare(Run(Night.AddDays(12), 134, bufferCount: 7), history);

        Assert.Equal(BaselineVerdict.Slower, result.Verdict);
        Assert.Equal(402.5, result.MedianMBps);
        Assert.Equal(3.0, Math.Round(result.Factor!.Value, 1));
        Assert.Equal(Night.AddDays(10), result.Since);
        Assert.Equal(3, result.SlowRuns);
        Assert.Equal(10, result.UsualRuns);
        var first = result.Changes[0];
        Assert.Equal(("BUFFERCOUNT", "50", "7", 1.0), (first.Factor, first.Usual, first.This, first.Separation));
        Assert.DoesNotContain(result.Changes, c => c.Factor == "compression");
        Assert.StartsWith("3.0x slower than usual: 134 MB/s against a median 402.5 MB/s", result.Summary);
        Assert.Contains("slow since 2026-11-11 01:00:00.000Z (3 runs); what changed: BUFFERCOUNT (usually 50, here 7)", result.Summary);
        Assert.Equal(["usual", "slow", "this"], result.Points.Select(p => p.Role).Distinct());
    }

    [Fact]
    public void A_snapshot_backup_is_not_judged_by_its_MB_per_second_nor_counted_in_the_usual_speed()
    {
        // Given: the usual nights, a snapshot night among them at 5000 MB/s, and a snapshot backup tonight
        var history = Nights(Usual);
        history.Insert(5, ComparableRun.Of(Run(Night.AddDays(4).AddHours(12), 5000) with { Snapshot = true }));

        // When
        var tonight = Compare(Run(Night.AddDays(10), 9000) with { Snapshot = true }, history);
        var usual = Compare(Run(Night.AddDays(10), 385), history);

        // Then
        Assert.Equal(BaselineVerdict.CannotTell, tonight.Verdict);
        Assert.Equal("cannot tell against its history: it is a snapshot backup: the storage copied the data, so its MB/s is no transfer speed", tonight.Summary);
        Assert.Equal((BaselineVerdict.Usual, 402.5, 10), (usual.Verdict, usual.MedianMBps!.Value, usual.UsualRuns));
    }

    [Fact]
    public void Compression_turned_off_is_the_change_that_explains_a_slow_run()
    {
        var result = Compare(Run(Night.AddDays(10), 130, compression: false), Nights(Usual));

        Assert.Equal(BaselineVerdict.Slower, result.Verdict);
        Assert.Equal(Night.AddDays(10), result.Since);
        Assert.Equal(1, result.SlowRuns);
        var change = Assert.Single(result.Changes);
        Assert.Equal(("compression", "COMPRESSION", "NO_COMPRESSION"), (change.Factor, change.Usual, change.This));
    }

    [Fact]
    public void A_new_server_version_and_encryption_algorithm_are_named_among_what_changed()
    {
        // Given: the usual nights on SQL Server 2019 CU (15.0.4316) without an algorithm named, then a night on 2022 (16.0.4135),
        // encrypted with AES_256, as msdb's software_*_version and key_algorithm record them
        var history = Usual.Select((rate, i) => ComparableRun.Of(Run(Night.AddDays(i), rate) with { ServerBuild = "15.0.4316" })).ToList();
        var current = Run(Night.AddDays(10), 130) with
        {
            ServerBuild = "16.0.4135",
            Options = new HistoryOptions { BufferCount = 50, MaxTransferSizeBytes = 4 << 20, Compression = true, Encryption = true, EncryptionAlgorithm = "AES_256" },
        };

        // When
        var result = Compare(current, history);

        // Then: the version is a change (the algorithm is not: no usual run recorded one to compare with)
        Assert.Equal(BaselineVerdict.Slower, result.Verdict);
        var change = Assert.Single(result.Changes, c => c.Factor == "server version");
        Assert.Equal(("15.0.4316", "16.0.4135", 1.0), (change.Usual, change.This, change.Separation));
        Assert.DoesNotContain(result.Changes, c => c.Factor == "encryption algorithm");
    }

    [Fact]
    public void A_run_within_the_usual_spread_is_as_usual_with_nothing_changed()
    {
        var result = Compare(Run(Night.AddDays(10), 385), Nights(Usual));

        Assert.Equal(BaselineVerdict.Usual, result.Verdict);
        Assert.Null(result.Factor);
        Assert.Null(result.Since);
        Assert.Empty(result.Changes);
        Assert.StartsWith("as usual: 385 MB/s against a median 402.5 MB/s (usually", result.Summary);
    }

    [Fact]
    public void A_noisy_series_needs_a_drop_beyond_its_own_spread_not_only_below_the_ratio()
    {
        // Median 275 MB/s, MAD 125: 180 MB/s is under 0.7 x the median but within three scaled MADs of it.
        var noisy = Nights([100, 400, 150, 380, 120, 390, 200, 350, 110, 420]);

        Assert.Equal(BaselineVerdict.Usual, Compare(Run(Night.AddDays(10), 180), noisy).Verdict);
        Assert.Equal(BaselineVerdict.Slower, Compare(Run(Night.AddDays(10), 180), Nights(Usual)).Verdict);
    }

    [Fact]
    public void Too_short_a_history_says_so_instead_of_a_verdict()
    {
        var result = Compare(Run(Night.AddDays(3), 100), Nights([400, 410, 395]));

        Assert.Equal(BaselineVerdict.CannotTell, result.Verdict);
        Assert.Equal("too few runs: 3 earlier ranked runs of this series in the history (3 in all), 5 needed", result.Reason);
        Assert.Null(result.MedianMBps);
    }

    [Fact]
    public void A_run_twice_as_fast_is_faster_and_says_what_changed()
    {
        var result = Compare(Run(Night.AddDays(10), 820, bufferCount: 200), Nights(Usual));

        Assert.Equal(BaselineVerdict.Faster, result.Verdict);
        Assert.Equal(2.0, Math.Round(result.Factor!.Value, 1));
        Assert.Equal("BUFFERCOUNT", result.Changes[0].Factor);
        Assert.Null(result.Since);
    }

    [Fact]
    public void Other_databases_log_backups_other_targets_and_the_run_itself_are_not_its_baseline()
    {
        var current = Run(Night.AddDays(10), 134);
        List<ComparableRun> history =
        [
            .. Nights(Usual).Select(r => ComparableRun.Of(r.Record with { Database = "HR" })),
            .. Nights(Usual).Select(r => ComparableRun.Of(r.Record with { Scope = OperationScope.Log })),
            .. Nights(Usual).Select(r => ComparableRun.Of(r.Record with { Devices = [new BackupDevice(DeviceKind.Url, "https://acct.blob.core.windows.net/sql/Sales.bak")] })),
            ComparableRun.Of(current),
        ];

        var result = Compare(current, history);

        Assert.Equal(BaselineVerdict.CannotTell, result.Verdict);
        Assert.StartsWith("too few runs: 0 earlier", result.Reason);
    }

    [Fact]
    public void A_slow_run_that_shared_its_share_with_other_backups_says_so_with_the_numbers()
    {
        var current = Run(Night.AddDays(10), 130);
        var history = Nights(Usual);
        history.Add(ComparableRun.Of(Run(Night.AddDays(10).AddMinutes(-5), 300, database: "Orders", path: Share + @"\Orders_FULL.bak")));
        history.Add(ComparableRun.Of(Run(Night.AddDays(10).AddMinutes(1), 300, database: "HR", path: @"E:\backup\HR_FULL.bak", bytes: 20 * GiB)));

        var result = Compare(current, history);

        Assert.Equal(BaselineVerdict.Slower, result.Verdict);
        Assert.Equal([true, false], result.Concurrent.Select(c => c.SameTarget));
        Assert.Equal("Orders", result.Concurrent[0].Database);
        var finding = Assert.Single(result.Findings);
        Assert.StartsWith(@"while it ran, 1 other operation wrote to \\nas01\backups: full backup of [Orders] 00:55:00.000-01:00:41.333 (", finding);
        Assert.EndsWith("its usual runs shared their target with a median of 0", finding);
        var concurrency = Assert.Single(result.Changes, c => c.Factor == "concurrent operations");
        Assert.Equal(("none", "2-3"), (concurrency.Usual, concurrency.This));
    }

    [Fact]
    public void A_full_backup_whose_log_part_is_ten_times_the_usual_says_so()
    {
        var history = Usual.Select((rate, i) => ComparableRun.Of(Run(Night.AddDays(i), rate, logBytes: 4 * GiB))).ToList();

        var result = Compare(Run(Night.AddDays(10), 120, logBytes: 40 * GiB), history);

        Assert.Equal(new LogPartReport(40 * GiB, 4 * GiB, 10), result.LogPart);
        Assert.Contains("its log part was 40 GB, 10.0x the usual 4 GB: log written while the full backup ran is copied into it", result.Findings);
        Assert.Equal("log part", result.Changes[0].Factor);
    }

    [Fact]
    public void A_failed_run_is_not_judged_on_its_throughput()
    {
        var result = Compare(Run(Night.AddDays(10), 100) with { Status = OperationStatus.Failed }, Nights(Usual));

        Assert.Equal(BaselineVerdict.CannotTell, result.Verdict);
        Assert.Equal("it did not complete (failed)", result.Reason);
    }

    [Theory]
    [InlineData(@"\\NAS01\Backups\SQL01\Sales\FULL\Sales.bak", @"\\nas01\backups")]
    [InlineData(@"X:\Backup\Sales.bak", "X:")]
    [InlineData("https://acct.blob.core.windows.net/sqlbackups/Sales.bak", "https://acct.blob.core.windows.net/sqlbackups")]
    [InlineData("s3://minio.local:9000/bucket/Sales.bak", "s3://minio.local/bucket")]
    [InlineData("NUL", "NUL")]
    [InlineData("/var/opt/mssql/backup/Sales.bak", "/var/opt")]
    [InlineData(@"\\.\Tape0", @"\\.\TAPE0")]
    public void The_target_root_is_the_share_volume_or_container(string path, string root)
        => Assert.Equal(root, TargetRoot.Of(path));
}
