using System.Text.Json;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources.ClientOutput;

/// <summary>
/// Client output names its server two ways: a SELECT @@VERSION printed by sqlcmd or SSMS (the banner, with its build),
/// and a restore's "Converting database ... to the current version M", whose database version names the release only.
/// The banner wins when both are there; the evidence says which one was used.
/// </summary>
public sealed class ClientOutputServerTests
{
    private static string Fixture(string name) => File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Fixtures", "realworld2", name));

    private const string T03 = "T03_msdocs_sql2017_container_wwi_restore_sqlcmd.txt";

    private const string T09b = "T09b_lessthandot_2013_sql2012_restore_with_recovery_upgrade_only.txt";

    // What sqlcmd prints for SELECT @@VERSION (a column without a name: a blank header, dashes, the value's lines).
    private const string SqlcmdVersion =
        "                                                                                                    \r\n"
        + "----------------------------------------------------------------------------------------------------\r\n"
        + "Microsoft SQL Server 2017 (RTM-CU13) (KB4466404) - 14.0.3048.4 (X64) \r\n"
        + "\tNov 30 2018 12:57:58 \r\n"
        + "\tCopyright (C) 2017 Microsoft Corporation\r\n"
        + "\tDeveloper Edition (64-bit) on Linux (Ubuntu 16.04.5 LTS)\r\n"
        + "\r\n"
        + "(1 rows affected)\r\n";

    private static async Task<JsonElement> ServerAsync(string text)
    {
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "restore.txt");
        var run = await CliRun.RunAsync(["analyze", input.Path, "--format", "json"]);
        Assert.True(run.ExitCode is 0, run.Output + run.Error);
        using var json = JsonDocument.Parse(run.Output);
        return Assert.Single(json.RootElement.GetProperty("operations").EnumerateArray()).GetProperty("server").Clone();
    }

    [Theory]
    [InlineData(T03, 14, "SQL Server 2017", "database version 869 in the 'Converting database' message, line 5")]
    [InlineData(T09b, 11, "SQL Server 2012", "database version 706 in the 'Converting database' message, line 1")]
    public async Task A_restores_database_version_names_the_release_it_ran_on(string fixture, int major, string product, string evidence)
    {
        var server = await ServerAsync(Fixture(fixture));

        Assert.Equal(major, server.GetProperty("major").GetInt32());
        Assert.Equal(product, server.GetProperty("product").GetString());
        Assert.Equal(JsonValueKind.Null, server.GetProperty("build").ValueKind);
        Assert.Equal(evidence, server.GetProperty("evidence").GetString());
    }

    [Fact]
    public async Task The_console_report_says_which_server_its_remedies_are_for()
    {
        using var input = TempInput.WithText(Fixture(T09b), Encodings.Utf8WithoutBom, "restore.txt");

        var run = await CliRun.RunAsync(["analyze", input.Path, "--no-color"]);

        var line = Assert.Single(run.Output.Split('\n'), l => l.StartsWith("Server ", StringComparison.Ordinal));
        Assert.EndsWith("SQL Server 2012 (from database version 706 in the 'Converting database' message, line 1)", line.TrimEnd(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_version_banner_in_the_output_gives_the_build_and_wins_over_the_database_version()
    {
        // Given: the T03 restore, then a SELECT @@VERSION run in the same sqlcmd session
        var server = await ServerAsync(Fixture(T03) + SqlcmdVersion);

        Assert.Equal(14, server.GetProperty("major").GetInt32());
        Assert.Equal("14.0.3048.4", server.GetProperty("build").GetString());
        Assert.Equal("the @@VERSION text in the output, line 26", server.GetProperty("evidence").GetString());
    }

    [Fact]
    public async Task A_banner_before_the_restore_is_kept()
    {
        var server = await ServerAsync(SqlcmdVersion + Fixture(T03));

        Assert.Equal("14.0.3048.4", server.GetProperty("build").GetString());
        Assert.Equal("the @@VERSION text in the output, line 3", server.GetProperty("evidence").GetString());
    }

    [Fact]
    public async Task An_unknown_database_version_names_no_server()
    {
        // Given: a pre-release number (SQL Server 2019 CTP 2.0's 895) where 869 was
        var server = await ServerAsync(Fixture(T03).Replace("current version 869", "current version 895", StringComparison.Ordinal));

        Assert.Equal(JsonValueKind.Null, server.ValueKind);
    }

    [Fact]
    public async Task An_errorlog_without_a_banner_is_dated_by_its_restores_database_version()
    {
        // Given: the log-zeroing sample, restored on a SQL Server 2022 from a 2016 database (the upgrade in the ERRORLOG's wording)
        var sample = File.ReadAllText(CliRun.Sample("log-zeroing-restore.log"));
        const string anchor = "2024-05-02 06:37:01.85 spid58      Restore: Backup set restored\r\n";
        Assert.Contains(anchor, sample, StringComparison.Ordinal);
        var log = sample.Replace(anchor, anchor + "2024-05-02 06:37:01.85 spid58      Converting database 'SalesArchive' from version 852 to the current version 957.\r\n", StringComparison.Ordinal);
        using var input = TempInput.WithText(log, Encodings.Utf16LeWithBom, "ERRORLOG");

        // When
        var run = await CliRun.RunAsync(["analyze", input.Path, "--format", "json"]);

        // Then
        using var json = JsonDocument.Parse(run.Output);
        var server = Assert.Single(json.RootElement.GetProperty("operations").EnumerateArray()).GetProperty("server");
        Assert.Equal("SQL Server 2022", server.GetProperty("product").GetString());
        Assert.StartsWith("database version 957 in the 'Converting database' message, line ", server.GetProperty("evidence").GetString(), StringComparison.Ordinal);
    }
}
