using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Restores;
using BackupXe.History;
using BackupXe.Tests.History;
using BackupXe.Testing.Tds;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// history restore-estimate and check's restore estimate section, end to end through the real driver against the TDS
/// double serving backupset rows with their sizes, sys.master_files page counts and the IFI state with the documented
/// types. SalesDB: a 100 GiB full (40 GiB compressed) in 800 s and a 10 GiB differential in 80 s, both 128 MiB/s, then
/// three 1 GiB log backups; an older log backup and a COPY_ONLY full that the restore would not use; 200 GiB of data
/// and 20 GiB of log files; IFI disabled; SQL Server 2022. HR: a full backup and no file row (sizes not visible).
/// </summary>
public sealed class RestoreEstimateCommandTests : IDisposable
{
    private const long GiB = HistoryOperations.GiB;
    private const long PagesPerGiB = GiB / 8192;
    private static readonly DateTime Night = DateTime.Today.AddDays(-2).AddHours(1);

    private readonly TempDirectory _directory = new();

    public RestoreEstimateCommandTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    public void Dispose() => _directory.Dispose();

    private static ScriptedSqlServer Server()
    {
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, InstantFileInitialization = "N", MajorVersion = 16 };
        sql.BackupSets.AddRange(
        [
            new("SalesDB", "L", false, "41000000008800001", "41000000016800001", "41000000000000001", "41000000016800001", "FULL", Night.AddHours(-1), Night.AddHours(-1).AddMinutes(1), GiB),
            new("SalesDB", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", Night, Night.AddSeconds(800), 100 * GiB, 40 * GiB),
            new("SalesDB", "I", false, "41000000020000037", "41000000020800001", "41000000016000037", "41000000020000037", "FULL", Night.AddHours(6), Night.AddHours(6).AddSeconds(80), 10 * GiB, 4 * GiB),
            new("SalesDB", "L", false, "41000000016800001", "41000000021600001", "41000000016000037", "41000000021600001", "FULL", Night.AddHours(7), Night.AddHours(7).AddMinutes(1), GiB),
            new("SalesDB", "L", false, "41000000021600001", "41000000022400001", "41000000016000037", "41000000022400001", "FULL", Night.AddHours(8), Night.AddHours(8).AddMinutes(1), GiB),
            new("SalesDB", "D", true, "41000000022000037", "41000000022200001", "41000000016000037", "41000000022000037", "FULL", Night.AddHours(8.5), Night.AddHours(8.5).AddSeconds(800), 100 * GiB),
            new("SalesDB", "L", false, "41000000022400001", "41000000023200001", "41000000016000037", "41000000023200001", "FULL", Night.AddHours(9), Night.AddHours(9).AddMinutes(1), GiB),
            new("HR", "D", false, "52000000004000037", "52000000005600001", "52000000000800001", "52000000004000037", "SIMPLE", Night, Night.AddSeconds(60), GiB),
        ]);
        sql.DatabaseFiles.Add(new("SalesDB", 200 * PagesPerGiB, 20 * PagesPerGiB));
        return sql;
    }

    private static async Task<CliRun> RunAsync(ScriptedSqlServer sql, params string[] verb)
    {
        await using var server = TdsServerDouble.Start(sql.Script);
        server.MajorVersion = sql.MajorVersion;
        return await CliRun.RunAsync([.. verb, .. TdsClient.CliArguments(server)]);
    }

    private static string At(double hours) => Night.AddHours(hours).ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture);

    [Fact]
    public async Task A_restore_estimate_for_a_scripted_server_lists_its_chain_phases_total_and_interval()
    {
        // When
        var run = await RunAsync(Server(), "history", "restore-estimate");

        // Then: copy 110 GiB at 64..128 MiB/s (the backups' 128 MiB/s x 0.5..1), data 200 GiB and log 20 GiB zeroed at
        // that rate, 3 GiB of log at it: 880..1760 + 1600..3200 + 160..320 + 24..48 = 2664..5328 s.
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("  SalesDB: 44 min 24 s to 1 h 28 min (assumed: data-file zeroing, log zeroing, copy full + differential, log restore)", run.Output, StringComparison.Ordinal);
        Assert.Contains($"    chain: full of {At(0)} (100 GB, 40 GB compressed), differential of {At(6)} (10 GB, 4 GB compressed), 3 log backup(s) from {At(7)} to {At(9 + 1 / 60.0)} (3 GB); 47 GB to read from the backups", run.Output, StringComparison.Ordinal);
        Assert.Contains("    files: data 200 GB, log 20 GB; Instant File Initialization disabled; major version 16", run.Output, StringComparison.Ordinal);
        Assert.Contains("copy full + differential  14 min 40 s to 29 min 20 s  assumed      110 GB: 0.5x to 1x the rate of 3 backup(s) of this database (no restore in the history)", run.Output, StringComparison.Ordinal);
        Assert.Contains("data-file zeroing         26 min 40 s to 53 min 20 s  assumed      200 GB: zeroing writes at the restore's copy rate", run.Output, StringComparison.Ordinal);
        Assert.Contains("  HR: cannot tell: no time for data-file zeroing, log zeroing", run.Output, StringComparison.Ordinal);
        Assert.Contains("    data-file zeroing         ?                         cannot tell  size not known: the data file sizes are not known", run.Output, StringComparison.Ordinal);
        Assert.Contains("sys.master_files shows no file of this database", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Json_and_markdown_carry_the_chain_the_phases_marked_measured_or_assumed_and_the_interval()
    {
        // When
        var json = await RunAsync(Server(), "history", "restore-estimate", "--format", "json");
        var markdown = await RunAsync(Server(), "history", "restore-estimate", "--format", "markdown", "-d", "SalesDB");

        // Then
        Assert.True(json.ExitCode == 0, json.Error);
        using var document = JsonDocument.Parse(json.Output);
        var estimates = document.RootElement.GetProperty("restoreEstimates").EnumerateArray().ToDictionary(e => e.GetProperty("database").GetString()!);
        var sales = estimates["SalesDB"];
        Assert.Equal(2664, sales.GetProperty("lowSeconds").GetDouble(), 3);
        Assert.Equal(5328, sales.GetProperty("highSeconds").GetDouble(), 3);
        var chain = sales.GetProperty("chain");
        Assert.Equal(100 * GiB, chain.GetProperty("full").GetProperty("backupBytes").GetInt64());
        Assert.Equal(40 * GiB, chain.GetProperty("full").GetProperty("mediaBytes").GetInt64());
        Assert.Equal(3, chain.GetProperty("logs").GetArrayLength());
        Assert.Equal(113 * GiB, chain.GetProperty("backupBytes").GetInt64());
        Assert.Equal(47 * GiB, chain.GetProperty("mediaBytes").GetInt64());
        Assert.Equal("disabled", sales.GetProperty("instantFileInitialization").GetString());
        Assert.Equal(200 * GiB, sales.GetProperty("dataFileBytes").GetInt64());
        Assert.All(sales.GetProperty("phases").EnumerateArray(), p => Assert.Equal("assumed", p.GetProperty("basis").GetString()));
        var hr = estimates["HR"];
        Assert.Equal(JsonValueKind.Null, hr.GetProperty("lowSeconds").ValueKind);
        Assert.Equal("cannot tell", hr.GetProperty("phases")[0].GetProperty("basis").GetString());
        Assert.Equal("assumed", hr.GetProperty("phases")[2].GetProperty("basis").GetString());

        Assert.True(markdown.ExitCode == 0, markdown.Error);
        Assert.Contains("### SalesDB: 44 min 24 s to 1 h 28 min", markdown.Output, StringComparison.Ordinal);
        Assert.Contains("| copy full + differential | 110 GB | 14 min 40 s to 29 min 20 s | assumed |", markdown.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("HR", markdown.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_html_page_carries_the_same_phases_with_every_input_text_escaped_under_the_reports_policy()
    {
        // Given: SalesDB as above, and a database whose name tries to close its element and run script
        const string Attack = "</script><script>alert(1)</script><img src=x onerror=alert(2)>\"'&";
        var sql = Server();
        sql.BackupSets.Add(new(Attack, "D", false, "61000000004000037", "61000000005600001", "61000000000800001", "61000000004000037", "FULL", Night, Night.AddSeconds(60), GiB));
        var file = _directory.File("estimate.html");

        // When
        var run = await RunAsync(sql, "history", "restore-estimate", "--format", "html", "-o", file);
        var json = await RunAsync(Server(), "history", "restore-estimate", "--format", "json", "-d", "SalesDB");

        // Then: one page, no element the attack added, its text read back intact, the two scripts the policy names
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(string.Empty, run.Output);
        var page = Tests.Rendering.Support.HtmlPage.Parse(File.ReadAllText(file));
        Assert.Empty(page.All("img"));
        Assert.Equal(2, page.Scripts.Count);
        Assert.DoesNotContain("<script>alert", page.Html, StringComparison.Ordinal);
        Assert.Contains(page.All("h3"), h => h.Value.StartsWith(Attack + ": ", StringComparison.Ordinal));
        var policy = (string)page.All("meta").Single(m => (string?)m.Attribute("http-equiv") == "Content-Security-Policy").Attribute("content")!;
        Assert.StartsWith("default-src 'none';", policy, StringComparison.Ordinal);

        // and SalesDB's phase table holds the JSON's bytes and seconds as raw values
        var section = page.Section("restore-estimate");
        var sales = section.Descendants("div").Single(d => d.Element("h3")?.Value.StartsWith("SalesDB: 44 min 24 s to 1 h 28 min", StringComparison.Ordinal) == true);
        var table = Tests.Rendering.Support.HtmlPage.Table(sales, "phases");
        using var document = JsonDocument.Parse(json.Output);
        var phases = document.RootElement.GetProperty("restoreEstimates")[0].GetProperty("phases").EnumerateArray().ToList();
        Assert.Equal(phases.Select(p => p.GetProperty("bytes").GetInt64().ToString(CultureInfo.InvariantCulture)), Tests.Rendering.Support.HtmlPage.Column(table, "bytes"));
        Assert.Equal(phases.Select(p => p.GetProperty("lowSeconds").GetDouble()), Tests.Rendering.Support.HtmlPage.Column(table, "lowSeconds").Select(v => Math.Round(double.Parse(v, CultureInfo.InvariantCulture), 3)));
    }

    [Fact]
    public async Task A_database_encrypted_with_TDE_has_its_data_files_zeroed_despite_IFI_and_says_what_is_not_counted()
    {
        // Given: SalesDB as above with IFI enabled, its sys.databases row saying is_encrypted = 1
        var sql = Server();
        sql.InstantFileInitialization = "Y";
        sql.DatabaseFiles.Clear();
        sql.DatabaseFiles.Add(new("SalesDB", 200 * PagesPerGiB, 20 * PagesPerGiB, Encrypted: true));

        // When
        var run = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB");
        var json = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB", "--format", "json");

        // Then: 200 GiB zeroed at the assumed 64..128 MiB/s, the reason named, and what the total leaves out
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("data-file zeroing         26 min 40 s to 53 min 20 s  assumed      200 GB: TDE: the database is encrypted (sys.databases.is_encrypted), which prevents Instant File Initialization for data files", run.Output, StringComparison.Ordinal);
        Assert.Contains("; not counted: recovery, reading the backups", run.Output, StringComparison.Ordinal);
        Assert.Contains("    not counted: recovery: cannot tell: ", run.Output, StringComparison.Ordinal);
        Assert.Contains("note: encrypted with TDE: a restore on another server needs there the certificate", run.Output, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(json.Output);
        var parts = document.RootElement.GetProperty("restoreEstimates")[0].GetProperty("notCounted").EnumerateArray().Select(u => u.GetProperty("part").GetString()).ToList();
        Assert.Equal(["recovery", "reading the backups"], parts);
    }

    [Fact]
    public async Task A_chain_with_encrypted_backups_says_in_every_format_that_their_decryption_is_not_counted()
    {
        // Given: SalesDB as above, its full and first log backup after the differential encrypted (backupset
        // key_algorithm AES_256 by a certificate): no input measures decrypting them and no rate is published
        var sql = Server();
        sql.BackupSets[1] = sql.BackupSets[1] with { KeyAlgorithm = "AES_256", EncryptorType = "CERTIFICATE" };
        sql.BackupSets[3] = sql.BackupSets[3] with { KeyAlgorithm = "AES_256", EncryptorType = "CERTIFICATE" };
        const string Reason = "not counted: decryption: cannot tell: 2 of the chain's 5 backup(s) are encrypted (backup encryption): how long decrypting them takes is measured by no input here";
        var file = _directory.File("estimate.html");

        // When
        var console = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB");
        var markdown = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB", "--format", "markdown");
        var json = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB", "--format", "json");
        var html = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB", "--format", "html", "-o", file);
        var check = await RunAsync(sql, "check");

        // Then: the total is unchanged (no rate invented) and says what it leaves out
        Assert.True(console.ExitCode == 0, console.Error);
        Assert.Contains("  SalesDB: 44 min 24 s to 1 h 28 min (assumed: data-file zeroing, log zeroing, copy full + differential, log restore); not counted: recovery, reading the backups, decryption", console.Output, StringComparison.Ordinal);
        Assert.Contains("    " + Reason, console.Output, StringComparison.Ordinal);
        Assert.Contains("- " + Reason, markdown.Output, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(json.Output);
        var sales = document.RootElement.GetProperty("restoreEstimates")[0];
        Assert.Equal(2664, sales.GetProperty("lowSeconds").GetDouble(), 3);
        var decryption = sales.GetProperty("notCounted").EnumerateArray().Single(u => u.GetProperty("part").GetString() == "decryption");
        Assert.StartsWith("2 of the chain's 5 backup(s) are encrypted", decryption.GetProperty("reason").GetString(), StringComparison.Ordinal);
        Assert.True(html.ExitCode == 0, html.Error);
        var section = Tests.Rendering.Support.HtmlPage.Parse(File.ReadAllText(file)).Section("restore-estimate");
        Assert.Contains(section.Descendants("li"), li => li.Value.Contains(Reason, StringComparison.Ordinal));
        Assert.Contains("  SalesDB  44 min 24 s to 1 h 28 min (assumed: data-file zeroing, log zeroing, copy full + differential, log restore); not counted: recovery, reading the backups, decryption", check.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Restores_in_the_history_make_the_copy_measured_and_enabled_IFI_removes_the_data_zeroing()
    {
        // Given: two restores of SalesDB at 256 and 200 MiB/s, one log restore at 64 MiB/s, as instance SQL01.
        var path = _directory.File("history.db");
        var history = new SqliteImportedHistory(path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        await history.ImportAsync("SQL01",
        [
            HistoryOperations.Msdb("SalesDB", Night.AddDays(-7), 400, 100 * GiB) with { Kind = Core.Events.OperationKind.Restore },
            HistoryOperations.Msdb("SalesDB", Night.AddDays(-6), 512, 100 * GiB) with { Kind = Core.Events.OperationKind.Restore },
            HistoryOperations.Msdb("SalesDB", Night.AddDays(-6).AddHours(1), 16, GiB) with { Kind = Core.Events.OperationKind.Restore, Scope = OperationScope.Log },
        ], CancellationToken.None);
        var sql = Server();
        sql.InstantFileInitialization = "Y";

        // When
        var run = await RunAsync(sql, "history", "restore-estimate", "--history", path, "-d", "SalesDB", "--format", "json");

        // Then: copy 110 GiB at 200..256 MiB/s = 440..563.2 s, logs 3 GiB at 64 MiB/s = 48 s, no data zeroing, the log zeroed
        // at the copy rate (assumed) = 80..102.4 s.
        Assert.True(run.ExitCode == 0, run.Error);
        using var document = JsonDocument.Parse(run.Output);
        var phases = document.RootElement.GetProperty("restoreEstimates")[0].GetProperty("phases").EnumerateArray()
            .ToDictionary(p => p.GetProperty("phase").GetString()!);
        Assert.Equal("measured", phases[RestoreEstimator.Copy].GetProperty("basis").GetString());
        Assert.Equal(440, phases[RestoreEstimator.Copy].GetProperty("lowSeconds").GetDouble(), 3);
        Assert.Equal(563.2, phases[RestoreEstimator.Copy].GetProperty("highSeconds").GetDouble(), 3);
        Assert.Equal("measured", phases[RestoreEstimator.LogRestore].GetProperty("basis").GetString());
        Assert.Equal(48, phases[RestoreEstimator.LogRestore].GetProperty("lowSeconds").GetDouble(), 3);
        Assert.Equal(0, phases[RestoreEstimator.DataZeroing].GetProperty("highSeconds").GetDouble());
        Assert.Equal("assumed", phases[RestoreEstimator.LogZeroing].GetProperty("basis").GetString());
        Assert.Equal(568, document.RootElement.GetProperty("restoreEstimates")[0].GetProperty("lowSeconds").GetDouble(), 3);
    }

    [Fact]
    public async Task A_restore_captured_by_the_daemon_times_the_recovery_of_the_estimate_as_measured()
    {
        // Given: the sample restore of [SalesArchive] (ERRORLOG with trace flags 3004/3014: redo from 06:37:01.86 to 05.21,
        // recovery from 05.23 to 05.54) analysed and stored as the daemon stores a capture, and a full backup of it in msdb.
        var analyzed = await CliRun.RunAsync("analyze", CliRun.Sample("log-zeroing-restore.log"), "--format", "json");
        using var analysis = JsonDocument.Parse(analyzed.Output);
        var report = Core.Rendering.ReportJson.Deserialize<Core.Reporting.OperationReport>(analysis.RootElement.GetProperty("operations")[0].GetRawText());
        var path = _directory.File("history.db");
        var store = new SqliteHistoryStore(path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        await store.SaveAsync("SQL01", report, CancellationToken.None);
        var sql = Server();
        sql.BackupSets.Add(new("SalesArchive", "D", false, "88123000000041200001", "88123000000046000001", "88123000000000000001", "88123000000041200001", "FULL", Night, Night.AddSeconds(600), 20 * GiB));

        // When
        var run = await RunAsync(sql, "history", "restore-estimate", "--history", path, "-d", "SalesArchive", "--format", "json");

        // Then: recovery is a measured phase of 3.35 + 0.31 s, and no longer among what the total leaves out
        Assert.True(run.ExitCode == 0, run.Error);
        using var document = JsonDocument.Parse(run.Output);
        var estimate = document.RootElement.GetProperty("restoreEstimates")[0];
        var recovery = estimate.GetProperty("phases").EnumerateArray().Single(p => p.GetProperty("phase").GetString() == RestoreEstimator.Recovery);
        Assert.Equal("measured", recovery.GetProperty("basis").GetString());
        Assert.Equal(3.66, recovery.GetProperty("lowSeconds").GetDouble(), 2);
        Assert.Contains("1 captured restore(s)", recovery.GetProperty("detail").GetString(), StringComparison.Ordinal);
        Assert.DoesNotContain(estimate.GetProperty("notCounted").EnumerateArray(), u => u.GetProperty("part").GetString() == RestoreEstimator.Recovery);
    }

    [Fact]
    public async Task A_login_that_may_not_read_the_service_state_gets_an_unknown_IFI_state_with_the_reason()
    {
        // Given
        var sql = Server().Deny("instant_file_initialization_enabled");

        // When
        var run = await RunAsync(sql, "history", "restore-estimate", "-d", "SalesDB");

        // Then: unknown IFI starts the data zeroing at nothing, and the note says why.
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("Instant File Initialization unknown", run.Output, StringComparison.Ordinal);
        Assert.Contains("note: Instant File Initialization unknown: sys.dm_server_services could not be read", run.Output, StringComparison.Ordinal);
        Assert.Contains("data-file zeroing         0 s to 53 min 20 s", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_reports_the_restore_estimate_as_a_section()
    {
        // When
        var console = await RunAsync(Server(), "check");
        var json = await RunAsync(Server(), "check", "--format", "json");

        // Then
        Assert.Contains("Restore estimate (chain from msdb backups since ", console.Output, StringComparison.Ordinal);
        Assert.Contains("  SalesDB  44 min 24 s to 1 h 28 min (assumed: ", console.Output, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(json.Output);
        Assert.Equal(2, document.RootElement.GetProperty("restoreEstimates").GetArrayLength());
        Assert.Equal(JsonValueKind.Null, document.RootElement.GetProperty("restoreEstimateError").ValueKind);
    }
}
