using System.Text.Json;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// history chain and check's restore chain section, end to end through the real driver against the TDS double serving
/// backupset rows with the documented types (<see cref="ScriptedSqlServer.BackupSets"/>): SalesDB misses its 02:00 log
/// backup, HR's chain is whole.
/// </summary>
public sealed class RestoreChainCommandTests
{
    private static readonly DateTime Night = DateTime.Today.AddDays(-2).AddHours(1);

    public RestoreChainCommandTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    private static ScriptedSqlServer Server()
    {
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        sql.BackupSets.AddRange(
        [
            new("HR", "D", false, "52000000004000037", "52000000005600001", "52000000000800001", "52000000004000037", "FULL", Night, Night.AddMinutes(5)),
            new("HR", "L", false, "52000000002400001", "52000000006400001", "52000000004000037", "52000000006400001", "FULL", Night.AddHours(1), Night.AddHours(1).AddMinutes(1)),
            new("SalesDB", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", Night, Night.AddMinutes(10)),
            new("SalesDB", "L", false, "41000000008800001", "41000000018400001", "41000000016000037", "41000000018400001", "FULL", Night.AddHours(1), Night.AddHours(1).AddMinutes(1)),
            new("SalesDB", "L", true, "41000000018400001", "41000000019000001", "41000000016000037", "41000000019000001", "FULL", Night.AddHours(1.5), Night.AddHours(1.5).AddMinutes(1)),
            new("SalesDB", "L", false, "41000000020000001", "41000000021600001", "41000000016000037", "41000000021600001", "FULL", Night.AddHours(3), Night.AddHours(3).AddMinutes(1)),
        ]);
        return sql;
    }

    private static async Task<CliRun> RunAsync(ScriptedSqlServer sql, params string[] verb)
    {
        await using var server = TdsServerDouble.Start(sql.Script);
        server.MajorVersion = sql.MajorVersion;
        return await CliRun.RunAsync([.. verb, .. TdsClient.CliArguments(server)]);
    }

    private static string At(int minutes) => Night.AddMinutes(minutes).ToString("yyyy-MM-dd HH:mm", System.Globalization.CultureInfo.InvariantCulture);

    [Fact]
    public async Task History_chain_names_the_missing_log_backup_and_says_whole_for_a_whole_chain()
    {
        // When
        var run = await RunAsync(Server(), "history", "chain");

        // Then
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.True(run.Output.Contains("SalesDB  broken", StringComparison.Ordinal), run.Output);
        Assert.Contains("  HR       whole (FULL recovery); oldest restore point " + At(5), run.Output, StringComparison.Ordinal);
        Assert.Contains("  SalesDB  broken: 1 gap(s) (FULL recovery); oldest restore point " + At(10), run.Output, StringComparison.Ordinal);
        Assert.Contains($"gap: from {At(61)} to {At(180)} (LSN 41000000018400001 to 41000000020000001): a log backup is missing", run.Output, StringComparison.Ordinal);
        Assert.Contains("note: 1 COPY_ONLY log backup(s) left out", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_backup_set_whose_lsn_is_no_number_or_that_finishes_before_it_starts_is_named_not_dropped()
    {
        // Given HR's whole chain and two damaged log backup rows after it
        var sql = Server();
        sql.BackupSets.Add(new("HR", "L", false, "5200000000640000X", "52000000007200001", "52000000004000037", "52000000007200001", "FULL", Night.AddHours(2), Night.AddHours(2).AddMinutes(1)));
        sql.BackupSets.Add(new("HR", "L", false, "52000000006400001", "52000000007200001", "52000000004000037", "52000000007200001", "FULL", Night.AddHours(3), Night.AddHours(2)));

        // When
        var run = await RunAsync(sql, "history", "chain");

        // Then each is a note on HR, which is still checked from its sound rows
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("  HR       whole (FULL recovery)", run.Output, StringComparison.Ordinal);
        Assert.Contains($"the msdb backup set of {Stamp(120)} (type L) has first_lsn '5200000000640000X', which is no LSN (numeric(25,0)): left out of the chain", run.Output, StringComparison.Ordinal);
        Assert.Contains($"the msdb backup set of {Stamp(180)} (type L) finishes at {Stamp(120)}, before it starts: left out of the chain", run.Output, StringComparison.Ordinal);
    }

    private static string Stamp(int minutes) => Night.AddMinutes(minutes).ToString("yyyy-MM-dd HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture);

    [Fact]
    public async Task A_database_restored_over_itself_has_its_chain_start_anew_at_the_restore_in_the_chain_and_the_estimate()
    {
        // Given: SalesDB's full of 01:00 and three log backups, then restored over itself at 05:00 WITH REPLACE from that
        // full (restorehistory restore_type D, its backup_set_id the full's), and two log backups after it that continue
        // from the full's end over LSNs the earlier ones used
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, InstantFileInitialization = "Y", MajorVersion = 16 };
        ScriptedBackupSet full = new("SalesDB", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", Night, Night.AddMinutes(10));
        sql.BackupSets.AddRange(
        [
            full,
            new("SalesDB", "L", false, "41000000008800001", "41000000018400001", "41000000016000037", "41000000018400001", "FULL", Night.AddHours(1), Night.AddHours(1).AddMinutes(1)),
            new("SalesDB", "L", false, "41000000018400001", "41000000020000001", "41000000016000037", "41000000020000001", "FULL", Night.AddHours(2), Night.AddHours(2).AddMinutes(1)),
            new("SalesDB", "L", false, "41000000020000001", "41000000021600001", "41000000016000037", "41000000021600001", "FULL", Night.AddHours(3), Night.AddHours(3).AddMinutes(1)),
            new("SalesDB", "L", false, "41000000017600001", "41000000019000001", "41000000016000037", "41000000019000001", "FULL", Night.AddHours(6), Night.AddHours(6).AddMinutes(1)),
            new("SalesDB", "L", false, "41000000019000001", "41000000019500001", "41000000016000037", "41000000019500001", "FULL", Night.AddHours(7), Night.AddHours(7).AddMinutes(1)),
        ]);
        sql.Restores.Add(new ScriptedRestore("SalesDB", Night.AddHours(5), true, full));
        sql.DatabaseFiles.Add(new("SalesDB", 131072, 13107));

        // When
        var console = await RunAsync(sql, "history", "chain");
        var json = await RunAsync(sql, "history", "chain", "--format", "json");
        var estimate = await RunAsync(sql, "history", "restore-estimate", "--format", "json");

        // Then: whole, from the full to the last log backup after the restore, and the restore named
        Assert.True(console.ExitCode == 0, console.Error);
        Assert.Contains("  SalesDB  whole (FULL recovery); oldest restore point " + At(10), console.Output, StringComparison.Ordinal);
        Assert.Contains($"note: restored at {At(300)} WITH REPLACE from its own full backup of {At(0)} (msdb restorehistory): its chain starts anew there, from that backup; the 4 backup set(s) before it are an earlier chain", console.Output, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(json.Output);
        var chain = document.RootElement.GetProperty("restoreChains")[0];
        Assert.True(chain.GetProperty("whole").GetBoolean());
        Assert.Equal(0, chain.GetProperty("gaps").GetArrayLength());
        Assert.Equal(Night.AddHours(7).AddMinutes(1), chain.GetProperty("pointInTimeTo").GetDateTime());

        // and the estimate restores the full and the two log backups after the restore, not the earlier chain's
        using var planned = JsonDocument.Parse(estimate.Output);
        var logs = planned.RootElement.GetProperty("restoreEstimates")[0].GetProperty("chain").GetProperty("logs");
        Assert.Equal([Night.AddHours(6), Night.AddHours(7)], logs.EnumerateArray().Select(l => l.GetProperty("start").GetDateTime()));
    }

    [Fact]
    public async Task A_login_that_may_not_read_restorehistory_gets_the_chain_from_backupset_and_a_note_saying_so()
    {
        // Given: the server refuses the restorehistory query (error 229, as for a login without SELECT on it)
        var sql = Server();
        sql.Script.On("msdb.dbo.restorehistory", _ => new TdsResponse().Error(229, 14, "The SELECT permission was denied on the object 'restorehistory', database 'msdb', schema 'dbo'."));

        // When
        var run = await RunAsync(sql, "history", "chain");

        // Then
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("  SalesDB  broken: 1 gap(s) (FULL recovery)", run.Output, StringComparison.Ordinal);
        Assert.Contains("note: msdb.dbo.restorehistory could not be read (The SELECT permission was denied on the object 'restorehistory', database 'msdb', schema 'dbo'.): a restore of this database would not be seen", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_encrypted_backup_and_one_on_url_are_named_in_the_chain_and_the_estimate_and_not_asked_of_a_server_before_2014()
    {
        // Given: HR's full encrypted with AES_256 by a certificate and its log backup on URL (backupset key_algorithm and
        // encryptor_type, backupmediafamily device_type 9)
        static ScriptedSqlServer Encrypted(int major)
        {
            var sql = Server();
            sql.MajorVersion = major;
            var hr = sql.BackupSets.Where(b => b.Database == "HR").ToList();
            sql.BackupSets.RemoveAll(b => b.Database == "HR");
            sql.BackupSets.Add(hr[0] with { KeyAlgorithm = "AES_256", EncryptorType = "CERTIFICATE" });
            sql.BackupSets.Add(hr[1] with { DeviceType = 9 });
            return sql;
        }

        // When
        var chain = await RunAsync(Encrypted(15), "history", "chain", "-d", "HR");
        var estimate = await RunAsync(Encrypted(15), "history", "restore-estimate", "-d", "HR");
        var before2014 = await RunAsync(Encrypted(11), "history", "chain", "-d", "HR");

        // Then: what a restore needs and reads, in the chain check and in the restore estimate
        Assert.True(chain.ExitCode == 0, chain.Error);
        Assert.Contains("1 of 2 backup(s) of the history read are encrypted (AES_256 by a certificate): the server that restores them needs that certificate or asymmetric key", chain.Output, StringComparison.Ordinal);
        Assert.Contains("backups of the history read not on disk: 1 on URL", chain.Output, StringComparison.Ordinal);
        Assert.True(estimate.ExitCode == 0, estimate.Error);
        Assert.Contains("1 of 2 backup(s) of the chain are encrypted (AES_256 by a certificate)", estimate.Output, StringComparison.Ordinal);
        Assert.Contains("backups of the chain not on disk: 1 on URL", estimate.Output, StringComparison.Ordinal);
        // and SQL Server 2012's backupset has no key_algorithm: the query asks for NULL, so nothing is said of encryption
        Assert.True(before2014.ExitCode == 0, before2014.Error);
        Assert.DoesNotContain("encrypted", before2014.Output, StringComparison.Ordinal);
        Assert.Contains("1 on URL", before2014.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task History_chain_html_lists_the_gap_with_its_times_lsns_and_reason()
    {
        // Given
        var file = Path.Combine(Path.GetTempPath(), "backupxe-chain-" + Guid.NewGuid().ToString("N") + ".html");
        try
        {
            // When
            var run = await RunAsync(Server(), "history", "chain", "--format", "html", "-o", file);

            // Then: a page under the reports' policy, SalesDB's gap as one row of its table, HR without one
            Assert.True(run.ExitCode == 0, run.Error);
            var page = Tests.Rendering.Support.HtmlPage.Parse(File.ReadAllText(file));
            Assert.Equal(2, page.Scripts.Count);
            var section = page.Section("restore-chain");
            var sales = section.Descendants("div").Single(d => d.Element("h3")?.Value.StartsWith("SalesDB: broken: 1 gap(s)", StringComparison.Ordinal) == true);
            var row = Assert.Single(Tests.Rendering.Support.HtmlPage.Table(sales, "gaps").Descendants("tbody").Single().Elements("tr"));
            Assert.Equal([At(61), At(180), "41000000018400001", "41000000020000001"], row.Elements("td").Take(4).Select(td => td.Value));
            Assert.StartsWith("a log backup is missing", row.Elements("td").Last().Value, StringComparison.Ordinal);
            var hr = section.Descendants("div").Single(d => d.Element("h3")?.Value.StartsWith("HR: whole", StringComparison.Ordinal) == true);
            Assert.Empty(hr.Descendants("table"));
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task History_chain_json_and_markdown_carry_the_same_chains()
    {
        // When
        var json = await RunAsync(Server(), "history", "chain", "--format", "json");
        var markdown = await RunAsync(Server(), "history", "chain", "--format", "markdown", "--database", "SalesDB");

        // Then
        Assert.Equal(0, json.ExitCode);
        using var document = JsonDocument.Parse(json.Output);
        var chains = document.RootElement.GetProperty("restoreChains").EnumerateArray().ToDictionary(c => c.GetProperty("database").GetString()!);
        Assert.True(chains["HR"].GetProperty("whole").GetBoolean());
        var gap = Assert.Single(chains["SalesDB"].GetProperty("gaps").EnumerateArray());
        Assert.Equal("41000000018400001", gap.GetProperty("fromLsn").GetString());
        Assert.Equal(Night.AddHours(3).ToString("yyyy-MM-dd'T'HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture), gap.GetProperty("before").GetString());

        Assert.Equal(0, markdown.ExitCode);
        Assert.Contains("- **SalesDB**: broken: 1 gap(s)", markdown.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("HR", markdown.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_reports_the_restore_chain_as_a_section()
    {
        // When
        var console = await RunAsync(Server(), "check");
        var json = await RunAsync(Server(), "check", "--format", "json");

        // Then
        Assert.Equal(0, console.ExitCode);
        Assert.Contains("Restore chain (backups since ", console.Output, StringComparison.Ordinal);
        Assert.Contains("  SalesDB  broken: 1 gap(s)", console.Output, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(json.Output);
        Assert.Equal(2, document.RootElement.GetProperty("restoreChains").GetArrayLength());
        Assert.Equal(JsonValueKind.Null, document.RootElement.GetProperty("restoreChainError").ValueKind);
    }
}
