using System.Text.Json;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// The checks the instant-file-initialization and spread-data-files remedies print are in the form the input's server
/// can run: instant_file_initialization_enabled arrived in SQL Server 2012 SP4 and 2016 SP1, the errorlog's startup
/// message in 2012 SP4, 2014 SP2 and 2016, sys.dm_os_volume_stats in 2008 R2 SP1 (Microsoft's pages, cited in
/// docs/diagnosis.md); before them, the other forms, and when the input does not say, which versions the T-SQL needs.
/// </summary>
public sealed class ServerChecksTests
{
    private const string DataFileZeroing =
        "2024-05-02 06:15:03.67 spid58      Zeroing D:\\SQLData\\SalesArchive.mdf from page 1 to 2621440 (0x2000 to 0x500000000)\r\n"
        + "2024-05-02 06:15:04.05 spid58      Zeroing completed on D:\\SQLData\\SalesArchive.mdf\r\n";

    /// <summary>
    /// The log-zeroing sample with a data file zeroed too, in trace flag 3004's wording (as the log's own lines are),
    /// after the version banner its server wrote at start (@@VERSION's text), or without one.
    /// </summary>
    private static TempInput ZeroingRestore(string? banner)
    {
        var sample = File.ReadAllText(CliRun.Sample("log-zeroing-restore.log"));
        const string anchor = "Restore: PreparingContainers\r\n";
        var at = sample.IndexOf(anchor, StringComparison.Ordinal);
        Assert.True(at > 0, "the sample's PreparingContainers line");
        var log = sample[..(at + anchor.Length)] + DataFileZeroing + sample[(at + anchor.Length)..];
        var start = banner is null ? "" : $"2024-05-01 22:00:00.00 Server      {banner} \r\n\tCopyright (c) Microsoft Corporation\r\n\r\n";
        return TempInput.WithText(start + log, Encodings.Utf16LeWithBom, "ERRORLOG");
    }

    private static async Task<JsonElement> InstantFileInitializationAsync(string? banner)
    {
        using var log = ZeroingRestore(banner);
        var run = await CliRun.RunAsync(["analyze", log.Path, "--format", "json"]);
        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        var restore = Assert.Single(json.RootElement.GetProperty("operations").EnumerateArray());
        Assert.Equal("file-zeroing", restore.GetProperty("verdict").GetProperty("bottleneck").GetString());
        return restore.GetProperty("recommendations").EnumerateArray()
            .Single(r => r.GetProperty("id").GetString() == RecommendationIds.InstantFileInitialization).Clone();
    }

    [Theory]
    [InlineData("Microsoft SQL Server 2016 (SP1) (KB3182545) - 13.0.4001.0 (X64)")]
    [InlineData("Microsoft SQL Server 2012 (SP4) (KB4018073) - 11.0.7001.0 (X64)")]
    [InlineData("Microsoft SQL Server 2019 (RTM) - 15.0.2000.5 (X64)")]
    public async Task A_server_with_the_column_is_given_the_dmv_alone(string banner)
    {
        var ifi = await InstantFileInitializationAsync(banner);

        Assert.Equal("SELECT servicename, service_account, instant_file_initialization_enabled\nFROM sys.dm_server_services;", ifi.GetProperty("tsql").GetString());
        Assert.DoesNotContain("This server is", ifi.GetProperty("text").GetString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Microsoft SQL Server 2016 (RTM) - 13.0.1601.5 (X64)", "SQL Server 2016 (13.0.1601.5")]
    [InlineData("Microsoft SQL Server 2014 (SP2) (KB3171021) - 12.0.5000.0 (X64)", "SQL Server 2014 (12.0.5000.0")]
    public async Task A_server_before_the_column_but_with_the_startup_message_reads_the_errorlog(string banner, string described)
    {
        var ifi = await InstantFileInitializationAsync(banner);

        var tsql = ifi.GetProperty("tsql").GetString()!;
        Assert.DoesNotContain("instant_file_initialization_enabled\nFROM", tsql, StringComparison.Ordinal);
        Assert.Contains("EXEC sys.xp_readerrorlog 0, 1, N'Database Instant File Initialization';", tsql, StringComparison.Ordinal);
        Assert.Contains($"This server is {described}, from the ERRORLOG's version banner, line 1): it has no instant_file_initialization_enabled column", ifi.GetProperty("text").GetString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Microsoft SQL Server 2014 - 12.0.2000.8 (X64)")]
    [InlineData("Microsoft SQL Server 2012 (SP3) (KB3072779) - 11.0.6020.0 (X64)")]
    [InlineData("Microsoft SQL Server 2008 R2 (SP2) - 10.50.4000.0 (X64)")]
    public async Task A_server_that_reports_it_nowhere_gets_the_trace_flag_check_and_is_told_its_restore_already_shows_it(string banner)
    {
        var ifi = await InstantFileInitializationAsync(banner);

        var tsql = ifi.GetProperty("tsql").GetString()!;
        Assert.DoesNotContain("dm_server_services", tsql, StringComparison.Ordinal);
        Assert.Contains("DBCC TRACEON (3004, 3605, -1);", tsql, StringComparison.Ordinal);
        Assert.Contains("CREATE DATABASE [BackupXe_ifi_check];", tsql, StringComparison.Ordinal);
        Assert.Contains("DBCC TRACEOFF (3004, 3605, -1);", tsql, StringComparison.Ordinal);
        Assert.EndsWith("DROP DATABASE [BackupXe_ifi_check];", tsql, StringComparison.Ordinal);
        var text = ifi.GetProperty("text").GetString()!;
        Assert.Contains("it reports Instant File Initialization nowhere", text, StringComparison.Ordinal);
        Assert.Contains("This restore's own messages already show a data file zeroed", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_input_that_does_not_say_its_server_is_told_which_versions_the_check_needs()
    {
        var ifi = await InstantFileInitializationAsync(banner: null);

        var tsql = ifi.GetProperty("tsql").GetString()!;
        Assert.StartsWith("-- SQL Server 2012 SP4, 2016 SP1 and later:\nSELECT servicename, service_account, instant_file_initialization_enabled", tsql, StringComparison.Ordinal);
        Assert.Contains("-- EXEC sys.xp_readerrorlog 0, 1, N'Database Instant File Initialization';", tsql, StringComparison.Ordinal);
        Assert.Contains("the input does not say its server", ifi.GetProperty("text").GetString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(13, "SQL Server 2016")]
    [InlineData(11, "SQL Server 2012")]
    public void A_release_known_without_its_build_is_told_which_service_pack_the_column_needs(int major, string product)
    {
        // Given: the release from a restore's database version, which names no service pack
        var server = ServerVersion.FromDatabaseVersion(major == 13 ? 852 : 706, "line 1")!;

        // When
        var (sentence, tsql) = ServerChecks.InstantFileInitialization(server, dataZeroedSeen: false);

        // Then
        Assert.Equal(product, server.Product);
        Assert.Null(server.Build);
        Assert.Contains($"This server is {product} (from database version", sentence, StringComparison.Ordinal);
        Assert.Contains("does not say its service pack", sentence, StringComparison.Ordinal);
        Assert.Contains("FROM sys.dm_server_services;", tsql, StringComparison.Ordinal);
        Assert.Contains("-- EXEC sys.xp_readerrorlog 0, 1, N'Database Instant File Initialization';", tsql, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("10.50.2500.0", true)]
    [InlineData("16.0.1000.6", true)]
    [InlineData("10.50.1600.1", false)]
    [InlineData("10.0.5500.0", false)]
    [InlineData("9.00.3282.00", false)]
    public void Spread_data_files_uses_dm_os_volume_stats_only_from_2008_R2_SP1(string build, bool volumeStats)
    {
        // Given: a backup bound by reading its data files, on that server
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPBUFFER", 3000, 150000), DiagnosisOperations.Wait("BACKUPIO", 500, 5000))
            with { Server = ServerVersion.FromBuild(build, "a test") };

        // When
        var spread = new BackupDiagnostician().Diagnose(operation).Recommendations.Single(r => r.Id == RecommendationIds.SpreadDataFiles);

        // Then
        Assert.Equal(volumeStats, spread.Tsql!.Contains("sys.dm_os_volume_stats", StringComparison.Ordinal));
        Assert.Equal(!volumeStats, spread.Tsql.Contains("EXEC master.dbo.xp_fixeddrives;", StringComparison.Ordinal));
        Assert.Equal(!volumeStats, spread.Text.Contains("it has no sys.dm_os_volume_stats (SQL Server 2008 R2 SP1 and later)", StringComparison.Ordinal));
        Assert.Contains("ADD FILE", spread.Tsql, StringComparison.Ordinal);
    }

    [Fact]
    public void Spread_data_files_without_a_known_server_says_which_versions_have_the_function()
    {
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPBUFFER", 3000, 150000), DiagnosisOperations.Wait("BACKUPIO", 500, 5000));

        var spread = new BackupDiagnostician().Diagnose(operation).Recommendations.Single(r => r.Id == RecommendationIds.SpreadDataFiles);

        Assert.Contains("(SQL Server 2008 R2 SP1 and later)\nSELECT f.name, f.physical_name, v.volume_mount_point", spread.Tsql, StringComparison.Ordinal);
        Assert.Contains("-- older builds: the volume is the start of physical_name", spread.Tsql, StringComparison.Ordinal);
    }

    [Fact]
    public void Sql_server_2000_lists_its_files_from_sysaltfiles()
    {
        var operation = DiagnosisOperations.Backup(DiagnosisOperations.Wait("BACKUPBUFFER", 3000, 150000), DiagnosisOperations.Wait("BACKUPIO", 500, 5000))
            with { Server = ServerVersion.FromBuild("8.00.2039", "a test") };

        var spread = new BackupDiagnostician().Diagnose(operation).Recommendations.Single(r => r.Id == RecommendationIds.SpreadDataFiles);

        Assert.Contains("FROM master.dbo.sysaltfiles", spread.Tsql, StringComparison.Ordinal);
        Assert.DoesNotContain("sys.master_files", spread.Tsql, StringComparison.Ordinal);
    }
}
