using BackupXe.Core.Diagnosis;
using BackupXe.Core.Tuning;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// <c>tune --to URL</c>: the URLs parsed and their credentials matched as BACKUP TO URL finds them, the limits of block
/// blobs and S3 objects, and the search against the simulated server striping over enough blobs to hold the database,
/// never deleting a blob and listing every one.
/// </summary>
public class TuneToUrlTests
{
    private const long GB = 1024L * 1024 * 1024;

    private static TuneRequest Request(IReadOnlyList<string> urls, string runId = "t1") =>
        new("Sales", urls, 1024 * ServerModel.MB, TimeSpan.FromMinutes(30), TimeSpan.FromSeconds(60), runId);

    [Theory]
    [InlineData("https://acct.blob.core.windows.net/backups/sql01/", UrlStorage.AzureBlockBlob, "https://acct.blob.core.windows.net/backups/sql01", "https://acct.blob.core.windows.net/backups")]
    [InlineData("s3://10.0.0.5:9000/bucket", UrlStorage.S3Compatible, "s3://10.0.0.5:9000/bucket", "s3://10.0.0.5:9000/bucket")]
    public void A_url_names_its_storage_its_prefix_and_the_container_its_credential_is_named_after(string value, UrlStorage storage, string prefix, string container)
    {
        var (target, problem) = UrlTarget.Parse(value);

        Assert.Null(problem);
        Assert.Equal(new UrlTarget(prefix, storage, container), target);
    }

    [Theory]
    [InlineData("http://acct.blob.core.windows.net/backups", "https:// (Azure Blob Storage) or s3://")]
    [InlineData("https://acct.blob.core.windows.net", "must name the container")]
    [InlineData("https://acct.blob.core.windows.net/backups?sv=2022&sig=secret", "belongs in the server's credential")]
    public void A_url_backup_cannot_write_to_is_refused_with_the_reason(string value, string reason)
    {
        var (target, problem) = UrlTarget.Parse(value);

        Assert.Null(target);
        Assert.Contains(reason, problem, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void The_credential_is_the_container_url_or_a_longer_prefix_of_the_target_never_a_sibling()
    {
        var target = UrlTarget.Parse("https://acct.blob.core.windows.net/backups/sql01").Target!;

        Assert.Equal("https://acct.blob.core.windows.net/backups", target.CredentialIn(["https://acct.blob.core.windows.net/backups"]));
        Assert.Equal("https://acct.blob.core.windows.net/backups/sql01", target.CredentialIn(["https://ACCT.blob.core.windows.net/backups", "https://acct.blob.core.windows.net/backups/sql01"]));
        Assert.Null(target.CredentialIn(["https://acct.blob.core.windows.net/backups2", "https://acct.blob.core.windows.net", "https://acct.blob.core.windows.net/backups/sql012"]));
        Assert.Contains("CREATE CREDENTIAL [https://acct.blob.core.windows.net/backups] WITH IDENTITY = 'SHARED ACCESS SIGNATURE'", target.CreateCredential, StringComparison.Ordinal);
    }

    [Fact]
    public void Block_blobs_and_s3_objects_hold_blocks_times_transfer_size_per_url_and_take_only_their_transfer_sizes()
    {
        var blob = UrlLimits.AzureBlockBlob;
        var s3 = UrlLimits.S3Compatible;

        // 64 x 50,000 x 4 MB: the 12.8 TB Microsoft's troubleshooting page gives for a backup to block blobs.
        Assert.Equal(64L * 50_000 * 4 * 1024 * 1024, blob.CapacityBytes(64, 4 * 1024 * 1024));
        Assert.Equal(7, blob.MinimumUrls(300 * GB, null));
        Assert.Equal(2, blob.MinimumUrls(300 * GB, 4 * 1024 * 1024));
        Assert.Equal(4, s3.MinimumUrls(300 * GB, null));
        Assert.True(blob.Takes(4 * 1024 * 1024, null));
        Assert.False(blob.Takes(8 * 1024 * 1024, null));
        Assert.False(blob.Takes(100_000, null));
        Assert.False(s3.Takes(4 * 1024 * 1024, true));
        Assert.False(s3.Takes(20 * 1024 * 1024, false));
        Assert.True(s3.Takes(20 * 1024 * 1024, true));
    }

    [Theory]
    [InlineData(new[] { "https://a.blob.core.windows.net/c", @"X:\Backup" }, "not both in one tune")]
    [InlineData(new[] { "https://a.blob.core.windows.net/c", "s3://h/b" }, "must all be Azure Blob Storage (https://) or all S3-compatible")]
    public void Urls_are_not_mixed_with_directories_nor_with_another_storage(string[] targets, string problem)
    {
        Assert.Contains(Request(targets).Validate(), line => line.Contains(problem, StringComparison.Ordinal));
    }

    [Fact]
    public void A_url_too_long_for_the_trial_blob_names_is_refused()
    {
        var request = Request(["https://a.blob.core.windows.net/c/" + new string('x', 230)]);

        Assert.Contains(request.Validate(), line => line.Contains("259 characters", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("t1")]
    [InlineData("t2")]
    [InlineData("t3")]
    public async Task Trials_stripe_over_enough_blobs_to_hold_the_database_reach_within_five_percent_of_the_best_and_leave_every_blob_listed(string runId)
    {
        var model = Shapes.UrlBlockBlob();
        var server = new SimulatedServer(model, Shapes.BlobContainers, seed: runId[^1] - '0');
        var request = Request(Shapes.BlobContainers, runId);
        var best = model.BestAchievable(Shapes.BlobContainers, request.MemoryBudgetBytes, UrlLimits.AzureBlockBlob.MaxUrls);

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        var trials = string.Join("\n", result.Trials.Select(t => $"{t.Number} {t.Purpose} {t.Requested.Describe()} {t.RateMBps:0} x{t.Runs.Count} {t.Bottleneck}"));
        Assert.False(result.Refused, result.StopReason);
        var reached = model.Rate(result.Best!.Requested, Shapes.BlobContainers, toNul: false).Rate;
        Assert.True(reached >= 0.95 * best, $"{reached:0} of {best:0}; {result.StopReason}\n{trials}");
        Assert.InRange(result.Trials.Count, 4, 14);

        // Every trial to URL held the whole database, used no NOINIT/NOSKIP (BACKUP TO URL takes neither) and no FORMAT.
        foreach (var statement in server.Statements.Where(s => !s.ToNul))
        {
            var size = statement.Options.MaxTransferSizeBytes;
            Assert.True(UrlLimits.AzureBlockBlob.CapacityBytes(statement.Devices.Count, size) >= model.DatabaseBytes, statement.Sql);
            Assert.InRange(statement.Devices.Count, 7, 64);
            Assert.All(statement.Devices, d => Assert.StartsWith("https://backupxe.blob.core.windows.net/trials", d, StringComparison.Ordinal));
            Assert.Contains("TO URL = N'https://", statement.Sql, StringComparison.Ordinal);
            Assert.DoesNotContain("NOINIT", statement.Sql, StringComparison.Ordinal);
            Assert.DoesNotContain("FORMAT", statement.Sql, StringComparison.Ordinal);
            var fragment = new TSql150Parser(true).Parse(new StringReader(statement.Sql), out var errors);
            Assert.Empty(errors);
            Assert.NotNull(fragment);
        }

        // The read ceilings still read to NUL; no blob is deleted (the simulated server could), every one is listed.
        Assert.All(server.Statements.Where(s => s.ToNul), s => Assert.Contains("TO DISK = N'NUL'", s.Sql, StringComparison.Ordinal));
        Assert.DoesNotContain(server.Calls, c => c.StartsWith("delete ", StringComparison.Ordinal) || c.StartsWith("check ", StringComparison.Ordinal));
        var written = server.Statements.Where(s => !s.ToNul).SelectMany(s => s.Devices).ToList();
        Assert.Equal(written, result.KeptFiles.Select(f => f.Path));
        Assert.True(TrialFileCleanup.AreBlobs(result.KeptFiles));
    }

    [Fact]
    public async Task The_plan_says_which_blobs_are_left_the_credential_checked_and_the_blobs_a_trial_needs()
    {
        var model = Shapes.UrlBlockBlob();
        var server = new SimulatedServer(model, Shapes.BlobContainers);

        var plan = await Tuner.PlanAsync(server, Request(Shapes.BlobContainers, "ab12cd34"), CancellationToken.None);

        Assert.True(plan.FilesKept);
        Assert.Equal(0, plan.DiskSpaceAtMost);
        Assert.Contains(plan.FixedTrials, t => t.StartsWith("baseline: COPY_ONLY to 7 new blobs under https://backupxe.blob.core.windows.net/trials/sql01", StringComparison.Ordinal));
        Assert.Contains(plan.Notes, n => n.Contains("sys.credentials", StringComparison.Ordinal) && n.Contains("https://backupxe.blob.core.windows.net/trials, https://backupxe.blob.core.windows.net/trials2", StringComparison.Ordinal));
        Assert.Contains(plan.Notes, n => n.StartsWith("Every trial blob is left in storage", StringComparison.Ordinal) && n.Contains("backupxe-tune-ab12cd34-*.bak", StringComparison.Ordinal));
        Assert.Contains(plan.Notes, n => n.Contains("50,000 blocks of 1 MB (48.8 GB)", StringComparison.Ordinal));
        Assert.DoesNotContain(plan.Notes, n => n.StartsWith("Trial files are new files", StringComparison.Ordinal) || n.StartsWith("Before each trial: free space", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_database_larger_than_64_blobs_hold_is_refused_before_any_trial()
    {
        var model = Shapes.UrlBlockBlob() with { DatabaseBytes = 13L * 1024 * GB };
        var server = new SimulatedServer(model, Shapes.BlobContainers);

        var result = await new Tuner(server, Request(Shapes.BlobContainers)).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Empty(server.Statements);
        Assert.Contains("holds 13 TB: more than 64 URLs of 50,000 blocks of 4 MB (195 GB) hold", result.StopReason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Trials_to_s3_compatible_storage_are_planned_and_refused_at_execute_with_what_is_missing()
    {
        string[] buckets = ["s3://minio.local:9000/backups"];
        var model = Shapes.UrlBlockBlob() with { DirectoryWriteMBps = new Dictionary<string, double> { [buckets[0]] = 1000 } };
        var server = new SimulatedServer(model, buckets);

        var plan = await Tuner.PlanAsync(server, Request(buckets), CancellationToken.None);
        var result = await new Tuner(server, Request(buckets)).RunAsync(CancellationToken.None);

        Assert.Contains(plan.Notes, n => n.StartsWith("Trials to S3-compatible storage are planned, not run", StringComparison.Ordinal));
        Assert.Contains(plan.Notes, n => n.Contains("10,000 parts of 10 MB", StringComparison.Ordinal));
        Assert.True(result.Refused);
        Assert.Empty(server.Statements);
        Assert.Contains("5 MB to 20 MB", result.StopReason, StringComparison.Ordinal);
    }
}
