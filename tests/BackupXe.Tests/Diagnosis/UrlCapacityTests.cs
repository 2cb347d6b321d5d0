using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// A backup to URL fails by arithmetic once it outgrows its URLs: 10,000 parts of MAXTRANSFERSIZE per S3 object (10 MB
/// by default, 97.66 GB), 50,000 blocks per Azure block blob (1 MB by default, 48.83 GB). BackupXe warns before it runs.
/// </summary>
public sealed class UrlCapacityTests
{
    private static readonly BackupDiagnostician Diagnostician = new();

    /// <summary>The job's own command (Ola Hallengren's Command: line), before the server reports anything.</summary>
    private static OperationReport ToUrls(long bytes, long? maxTransferSize, params string[] urls) => Backup() with
    {
        Devices = [],
        EstimatedBytes = bytes,
        Requested = new RequestedReport(urls, null, maxTransferSize, null, true, true, false, "Command: line 3"),
    };

    private static Recommendation? Warning(OperationReport operation) =>
        Diagnostician.Diagnose(operation).Recommendations.SingleOrDefault(r => r.Id == "url-capacity");

    [Fact]
    public void A_120_gib_backup_to_one_s3_url_at_the_default_transfer_size_is_warned_before_it_runs()
    {
        // Given
        var operation = ToUrls(120 * GB, null, "s3://minio.local:9000/backups/Sales_FULL.bak");

        // When
        var warning = Warning(operation);

        // Then: it names the failure and the arithmetic, and stripes it at the largest part size
        Assert.NotNull(warning);
        Assert.Contains("will fail", warning.Text, StringComparison.Ordinal);
        Assert.Contains("1 URL x 10,000 parts x 10 MB = 97.7 GB", warning.Text, StringComparison.Ordinal);
        Assert.Contains("MAXTRANSFERSIZE = 20971520", warning.Tsql, StringComparison.Ordinal);
        Assert.Contains("COMPRESSION", warning.Tsql, StringComparison.Ordinal);
        Assert.Contains("URL = N's3://minio.local:9000/backups/Sales_FULL_1.bak'", warning.Tsql, StringComparison.Ordinal);
    }

    [Fact]
    public void The_same_backup_over_two_urls_or_at_20_mb_parts_is_not_warned()
    {
        Assert.Null(Warning(ToUrls(120 * GB, null, "s3://minio.local:9000/b/S_1.bak", "s3://minio.local:9000/b/S_2.bak")));
        Assert.Null(Warning(ToUrls(120 * GB, 20 * MB, "s3://minio.local:9000/b/S.bak")));
    }

    [Fact]
    public void A_backup_within_a_fifth_of_the_limit_is_warned_with_its_share()
    {
        // Given: 40 GB to one block blob at the default 1 MB, which holds 48.83 GB
        var warning = Warning(ToUrls(40 * GB, null, "https://acct.blob.core.windows.net/backups/Sales.bak"));

        // Then
        Assert.NotNull(warning);
        Assert.Contains("1 URL x 50,000 blocks x 1 MB = 48.8 GB (82%)", warning.Text, StringComparison.Ordinal);
        Assert.Contains("MAXTRANSFERSIZE = 4194304", warning.Tsql, StringComparison.Ordinal);
    }

    [Fact]
    public void A_disk_backup_or_a_small_one_is_never_warned()
    {
        Assert.Null(Warning(Backup() with { EstimatedBytes = 500 * GB }));
        Assert.Null(Warning(ToUrls(10 * GB, null, "s3://minio.local:9000/b/S.bak")));
    }

    [Fact]
    public void A_failure_when_a_block_blob_ran_out_of_blocks_is_explained_with_the_arithmetic()
    {
        // Given: the engine's words for the block limit, no size in the input
        var operation = Backup() with
        {
            Devices = [new DeviceReport("https://acct.blob.core.windows.net/backups/DB_part14.bak")],
            EstimatedBytes = null,
            Status = OperationStatus.Failed,
            FailureError = new FailureErrorReport(3271, 16,
                "Write to backup block blob device https://acct.blob.core.windows.net/backups/DB_part14.bak failed. Device has reached its limit of allowed blocks.", null),
        };

        // When
        var warning = Warning(operation);

        // Then
        Assert.NotNull(warning);
        Assert.Contains("1 URL x 50,000 blocks x 1 MB = 48.8 GB", warning.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void The_capacity_is_urls_times_blocks_times_the_transfer_size()
    {
        var s3 = UrlCapacity.Of(["s3://e/b/x.bak"], null)!;
        Assert.Equal(10_000L * 10 * MB, s3.CapacityBytes);
        Assert.Equal(2, s3.UrlsAtLargestTransfer(300 * GB));
        Assert.Null(UrlCapacity.Of([@"D:\b\x.bak"], null));
        Assert.Null(UrlCapacity.Of(["s3://e/b/x.bak", "https://a.blob.core.windows.net/c/x.bak"], null));
    }
}
