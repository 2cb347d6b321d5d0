using System.Text.Json;
using BackupXe.Core.Events;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// Remedies fit the server each input says it came from: an ERRORLOG's version banner or the Version line of Ola
/// Hallengren's job output. A server before SQL Server 2016 has no backup_restore_progress_trace, so it is offered the
/// trace-flag capture, never BackupXe's XE session; the choice is made per input, not per run.
/// </summary>
public sealed class RemediesForTheInputsServerTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);

    // The banner a SQL Server 2014 RTM writes first on each start: @@VERSION's text, its continuation lines tab-indented.
    private const string Banner2014 =
        "2014-09-10 18:00:00.00 Server      Microsoft SQL Server 2014 - 12.0.2000.8 (X64) \r\n"
        + "\tFeb 20 2014 20:04:26 \r\n"
        + "\tCopyright (c) Microsoft Corporation\r\n"
        + "\tEnterprise Edition (64-bit) on Windows NT 6.3 <X64> (Build 9600: ) (Hypervisor)\r\n"
        + "\r\n"
        + "2014-09-10 18:00:00.00 Server      (c) Microsoft Corporation.\r\n"
        + "2014-09-10 18:00:00.00 Server      All rights reserved.\r\n";

    /// <summary>The Microsoft docs' trace flag 3014 sample (a 2014 backup), as its server's ERRORLOG would hold it after the start banner.</summary>
    private static TempInput Sql2014Errorlog()
    {
        var log = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Fixtures", "errorlog", "tf3014-backup-sql2014.log"));
        return TempInput.WithText(Banner2014 + log, Encodings.Utf16LeWithBom, "ERRORLOG");
    }

    private static TempInput Sql2008Restores() =>
        TempInput.WithText(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Fixtures", "realworld", "S12_psssql_2008_restore_errorlog_default_logging.txt")), Encodings.Utf8WithoutBom, "S12.txt");

    private static async Task<List<JsonElement>> OperationsAsync(params string[] inputs)
    {
        var run = await CliRun.RunAsync(["analyze", .. inputs, "--format", "json"]);
        Assert.True(run.ExitCode is 0 or 2, run.Output);
        using var json = JsonDocument.Parse(run.Output);
        return json.RootElement.GetProperty("operations").EnumerateArray().Select(o => o.Clone()).ToList();
    }

    private static List<string> Ids(JsonElement operation) =>
        operation.GetProperty("recommendations").EnumerateArray().Select(r => r.GetProperty("id").GetString()!).ToList();

    private static JsonElement Remedy(JsonElement operation, string id) =>
        operation.GetProperty("recommendations").EnumerateArray().Single(r => r.GetProperty("id").GetString() == id);

    [Fact]
    public async Task A_2014_errorlog_is_never_offered_the_xe_session_nor_the_flags_it_was_captured_with()
    {
        // Given: the backup was captured with 3014, 3213 and 3605 already; only the waits are missing
        using var log = Sql2014Errorlog();

        // When
        var backup = Assert.Single(await OperationsAsync(log.Path));

        // Then
        var server = backup.GetProperty("server");
        Assert.Equal(12, server.GetProperty("major").GetInt32());
        Assert.Equal("SQL Server 2014", server.GetProperty("product").GetString());
        Assert.Equal("12.0.2000.8", server.GetProperty("build").GetString());
        Assert.Equal("the ERRORLOG's version banner, line 1", server.GetProperty("evidence").GetString());
        Assert.Equal(["measure-read-ceiling"], Ids(backup));
        var evidence = backup.GetProperty("verdict").GetProperty("evidence").EnumerateArray().Select(e => e.GetString()!).ToList();
        Assert.Contains(evidence, e => e.Contains("SQL Server 2014 (from the ERRORLOG's version banner, line 1), predates BackupXe's XE session", StringComparison.Ordinal));
        Assert.DoesNotContain(evidence, e => e.Contains("backupxe session install", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_2008_R2_restore_seen_only_by_its_totals_gets_the_restore_flags_for_its_server()
    {
        // Given: default logging of a restore (S12), after its server's start banner
        var restore = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Fixtures", "realworld", "S12_psssql_2008_restore_errorlog_default_logging.txt"));
        var banner = "2008-01-23 08:00:00.00 Server      Microsoft SQL Server 2008 R2 (SP2) - 10.50.4266.0 (X64) \r\n"
            + "\tSep 26 2012 17:08:07 \r\n\tCopyright (c) Microsoft Corporation\r\n\tStandard Edition (64-bit) on Windows NT 6.1 <X64> (Build 7601: Service Pack 1)\r\n\r\n";
        using var log = TempInput.WithText(banner + restore, Encodings.Utf16LeWithBom, "ERRORLOG");

        // When
        var operation = Assert.Single(await OperationsAsync(log.Path));

        // Then
        Assert.Equal("SQL Server 2008 R2", operation.GetProperty("server").GetProperty("product").GetString());
        Assert.Equal(["capture-trace-flags"], Ids(operation));
        var capture = Remedy(operation, "capture-trace-flags");
        Assert.Contains("This server is SQL Server 2008 R2 (10.50.4266.0, from the ERRORLOG's version banner, line 1), older than SQL Server 2016", capture.GetProperty("text").GetString());
        Assert.Contains("3004 writes the restore's steps and file zeroing", capture.GetProperty("text").GetString());
        Assert.Contains("DBCC TRACEON (3004, 3213, 3605, -1);", capture.GetProperty("tsql").GetString());
        Assert.Equal("evidence-only", capture.GetProperty("expectedGain").GetProperty("basis").GetString());
    }

    [Fact]
    public async Task The_same_log_without_its_banner_says_nothing_of_its_server_and_keeps_the_session_remedy()
    {
        // Given: the fixture as published, which starts mid-log
        var path = Path.Combine(AppContext.BaseDirectory, "Fixtures", "errorlog", "tf3014-backup-sql2014.log");

        // When
        var backup = Assert.Single(await OperationsAsync(path));

        // Then
        Assert.Equal(JsonValueKind.Null, backup.GetProperty("server").ValueKind);
        Assert.Contains("capture-waits", Ids(backup));
    }

    [Fact]
    public async Task Each_input_decides_for_its_own_operations()
    {
        // Given: a 2014 ERRORLOG with its banner beside a restore log that names no server
        using var log = Sql2014Errorlog();
        using var restores = Sql2008Restores();

        // When
        var operations = await OperationsAsync(log.Path, restores.Path);

        // Then
        var backup = Assert.Single(operations, o => o.GetProperty("kind").GetString() == "backup");
        Assert.Equal(12, backup.GetProperty("server").GetProperty("major").GetInt32());
        Assert.DoesNotContain("capture-waits", Ids(backup));
        var restore = Assert.Single(operations, o => o.GetProperty("kind").GetString() == "restore");
        Assert.Equal(JsonValueKind.Null, restore.GetProperty("server").ValueKind);
        Assert.Contains("capture-waits", Ids(restore));
    }

    [Theory]
    [InlineData("12.0.4100.1", 12, false)]
    [InlineData("10.50.6000.34", 10, false)]
    [InlineData("15.0.4360.2", 15, true)]
    public async Task Ola_output_names_its_server_in_the_version_line(string version, int major, bool sessionOffered)
    {
        // Given
        var text = new OlaJobOutput(version: version)
            .Command(Night, TimeSpan.FromSeconds(42), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_FULL.bak' WITH CHECKSUM", pages: 1_310_720, engineSeconds: 41.5)
            .ToString();
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "DatabaseBackup.txt");

        // When
        var backup = Assert.Single(await OperationsAsync(input.Path));

        // Then: only totals, so the capture is offered; the session only where the server can run it
        Assert.Equal(major, backup.GetProperty("server").GetProperty("major").GetInt32());
        Assert.Equal("the job output's Version line, line 3", backup.GetProperty("server").GetProperty("evidence").GetString());
        Assert.Contains("capture-trace-flags", Ids(backup));
        Assert.Equal(sessionOffered, Ids(backup).Contains("capture-waits"));
    }

    [Fact]
    public void A_2005_server_is_offered_no_compression_remedy()
    {
        // Given: a backup whose device waits dominate, on a server whose BACKUP has no COMPRESSION option
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPIO", 1000, 100_000)) with { Server = ServerVersion.FromBuild("9.00.3282.00", "a test") };

        // When
        var ids = new BackupXe.Core.Diagnosis.BackupDiagnostician().Diagnose(operation).Recommendations.Select(r => r.Id).ToList();
        var without = new BackupXe.Core.Diagnosis.BackupDiagnostician().Diagnose(operation with { Server = null }).Recommendations.Select(r => r.Id).ToList();

        // Then
        Assert.DoesNotContain("enable-compression", ids);
        Assert.Contains("enable-compression", without);
    }

    [Fact]
    public void The_compression_remedy_names_the_editions_that_can_compress_for_its_server()
    {
        // Given: the same device-bound backup on SQL Server 2008, 2008 R2 and an unknown server
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPIO", 1000, 100_000));
        string Text(ServerVersion? server) => new BackupXe.Core.Diagnosis.BackupDiagnostician().Diagnose(operation with { Server = server })
            .Recommendations.Single(r => r.Id == "enable-compression").Text;

        // When
        var on2008 = Text(ServerVersion.FromBuild("10.0.6000.29", "a test"));
        var on2008R2 = Text(ServerVersion.FromBuild("10.50.6000.34", "a test"));
        var unknown = Text(null);

        // Then: 2008 is Enterprise-only; later releases add Standard; every text says how to check
        Assert.Contains("SQL Server 2008 creates compressed backups in Enterprise and Developer editions only", on2008);
        Assert.Contains("Only Enterprise, Standard and Developer editions", on2008R2);
        Assert.Contains("Only Enterprise, Standard and Developer editions", unknown);
        Assert.All([on2008, on2008R2, unknown], text => Assert.Contains("SERVERPROPERTY('Edition')", text));
    }

    [Fact]
    public void A_2000_server_is_not_told_to_back_up_to_NUL_which_without_COPY_ONLY_would_reset_its_differential_base()
    {
        // Given: a backup bound by reading its data files, on SQL Server 2000 (no COPY_ONLY) and on 2005
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPBUFFER", 3000, 150000), DiagnosisOperations.Wait("BACKUPIO", 500, 5000));

        // When
        var on2000 = new BackupXe.Core.Diagnosis.BackupDiagnostician().Diagnose(operation with { Server = ServerVersion.FromBuild("8.00.2039", "a test") });
        var on2005 = new BackupXe.Core.Diagnosis.BackupDiagnostician().Diagnose(operation with { Server = ServerVersion.FromBuild("9.00.3282.00", "a test") });

        // Then
        Assert.Equal(["spread-data-files"], on2000.Recommendations.Select(r => r.Id));
        Assert.Equal(["spread-data-files", "measure-read-ceiling"], on2005.Recommendations.Select(r => r.Id));
    }

    [Fact]
    public void A_2000_restore_lists_its_log_files_from_sysaltfiles()
    {
        var restore = DiagnosisOperations.Restore() with
        {
            Zeroing = [new BackupXe.Core.Reporting.ZeroingReport(@"L:\log\Sales_log.ldf", null, null, null, 120)],
            Server = ServerVersion.FromBuild("8.00.2039", "a test"),
        };

        var log = new BackupXe.Core.Diagnosis.BackupDiagnostician().Diagnose(restore).Recommendations.Single(r => r.Id == "right-size-log");

        Assert.Contains("FROM master.dbo.sysaltfiles\nWHERE dbid = DB_ID(N'Sales') AND groupid = 0;", log.Tsql, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Microsoft SQL Server 2005 - 9.00.3282.00 (Intel X86)", 9, "SQL Server 2005")]
    [InlineData("Microsoft SQL Server 2008 R2 (SP2) - 10.50.4266.0 (X64)", 10, "SQL Server 2008 R2")]
    [InlineData("Microsoft SQL Server 2014 - 12.0.2000.8 (X64) \u2028\tFeb 20 2014 20:04:26", 12, "SQL Server 2014")]
    [InlineData("Microsoft SQL Server 2022 (RTM-CU12) (KB5033663) - 16.0.4115.5 (X64)", 16, "SQL Server 2022")]
    public void A_banner_gives_the_major_version(string banner, int major, string product)
    {
        var version = ServerVersion.FromBanner(banner, "a test");

        Assert.NotNull(version);
        Assert.Equal(major, version.Major);
        Assert.Equal(product, version.Product);
    }

    [Theory]
    [InlineData("Microsoft SQL Server is starting")]
    [InlineData("Microsoft SQL Server 2014 - 99.0.1.1 (X64)")]
    [InlineData("Microsoft SQL Server 2014 - 12.0 (X64)")]
    public void A_line_that_is_not_a_banner_gives_no_version(string text) =>
        Assert.Null(ServerVersion.FromBanner(text, "a test"));
}
