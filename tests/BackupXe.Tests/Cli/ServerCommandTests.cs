using System.Diagnostics;
using System.Text.Json;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// session install / uninstall / status and check, end to end through Program.Main and the real driver, against
/// the TDS double scripted as a server (<see cref="ScriptedSqlServer"/>). Every run is scanned for secrets.
/// </summary>
public class ServerCommandTests
{
    public ServerCommandTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    [Fact]
    public async Task Install_creates_the_session_and_prints_its_status()
    {
        // Given
        var sql = new ScriptedSqlServer();
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "install");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("BackupXe: session [BackupXe] created and running.", run.Output);
        Assert.Contains($"Session BackupXe created on {server.Server}.", run.Output);
        Assert.Contains("Session BackupXe: running.", run.Output);
        Assert.Contains(server.Requests, r => r.Text.Contains("DECLARE @SessionName sysname = N'BackupXe';", StringComparison.Ordinal) && r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
        Assert.All(server.Logins, l => Assert.Equal("BackupXe", l.ApplicationName));
    }

    [Fact]
    public async Task Install_over_a_present_session_re_creates_it()
    {
        // Given
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = false };
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "install", "--file-path", @"D:\XE\Backup's.xel");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("was already present", run.Output);
        Assert.Contains(server.Requests, r => r.Text.Contains(@"DECLARE @FilePath nvarchar(260) = N'D:\XE\Backup''s.xel';", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Install_on_sql_server_2014_changes_nothing_and_gives_the_errorlog_route()
    {
        // Given
        var sql = new ScriptedSqlServer { MajorVersion = 12 };
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "install");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("nothing was changed", run.Error);
        Assert.Contains("DBCC TRACEON(3004, 3014, 3213, 3605, -1)", run.Error);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Install_without_the_permission_names_the_grant_and_changes_nothing()
    {
        // Given
        var sql = new ScriptedSqlServer();
        sql.Permissions.Remove("ALTER ANY EVENT SESSION");
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "install");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"GRANT ALTER ANY EVENT SESSION TO [{TdsClient.User}];", run.Error);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_refused_login_is_one_line_with_18456_and_no_password()
    {
        // Given
        await using var server = Start(new ScriptedSqlServer());
        server.Credentials = (TdsClient.User, "another password");

        // When
        var run = await RunAsync(server, "session", "status");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.Contains($"Login failed for user '{TdsClient.User}'", line);
        Assert.Contains("error 18456", line);
        Assert.Equal(TdsClient.Password, server.Logins.Single().Password);
    }

    [Fact]
    public async Task A_connection_dropped_mid_query_is_one_line_and_exit_1()
    {
        // Given
        var sql = new ScriptedSqlServer().DropConnectionOn("dm_xe_session_targets");
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "status");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.StartsWith($"backupxe: cannot reach {server.Server}: ", line);
        Assert.Contains("(error 0)", line);
    }

    [Fact]
    public async Task A_broken_connection_says_what_to_check_and_the_drivers_message_only_with_verbose()
    {
        // Given
        var sql = new ScriptedSqlServer().DropConnectionOn("dm_xe_session_targets");
        await using var server = Start(sql);

        // When
        var plain = await RunAsync(server, "session", "status");
        var verbose = await RunAsync(server, "session", "status", "--verbose");

        // Then one sentence with what to do, and the driver's own words when asked
        var said = Assert.Single(Lines(plain.Error));
        Assert.Equal($"backupxe: cannot reach {server.Server}: the connection was refused or broke (error 0): check that SQL Server runs and accepts TCP connections under that name and port (host,port; host\\instance also needs the SQL Browser on UDP 1434) and that no firewall is in between; --verbose shows the driver's own message", said);
        var driver = Assert.Single(Lines(verbose.Error));
        Assert.StartsWith($"backupxe: cannot reach {server.Server}: ", driver, StringComparison.Ordinal);
        Assert.Contains("(error 0)", driver, StringComparison.Ordinal);
        Assert.DoesNotContain("--verbose shows", driver, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Status_shows_drops_and_buffer_memory_and_uninstall_removes_the_session()
    {
        // Given
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, DroppedEvents = 17 };
        await using var server = Start(sql);

        // When
        var status = await RunAsync(server, "session", "status");
        var uninstall = await RunAsync(server, "session", "uninstall");
        var again = await RunAsync(server, "session", "uninstall");

        // Then
        Assert.Equal(0, status.ExitCode);
        Assert.Contains("  dropped: 17 events, 0 buffers", status.Output);
        Assert.Contains("  buffer memory: 4096 KB", status.Output);
        Assert.Contains("warning: the server dropped events", status.Output);
        Assert.Equal(0, uninstall.ExitCode);
        Assert.Contains("stopped and dropped", uninstall.Output);
        Assert.Contains("Session BackupXe: not installed.", uninstall.Output);
        Assert.Equal(0, again.ExitCode);
        Assert.Contains("nothing to do", again.Output);
    }

    [Fact]
    public async Task Check_passes_a_ready_server_line_by_line()
    {
        // Given
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, CompressionDefault = 1 };
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check");

        // Then
        Assert.Equal(0, run.ExitCode);
        var lines = Lines(run.Output);
        Assert.Equal(
            ["version", "platform", "permissions", "capture session", "session filter", "events", "backup compression", "instant file init", "memory", "msdb history", "backups to URL"],
            lines.Where(l => l.StartsWith("PASS", StringComparison.Ordinal)).Select(l => l[6..].Split("  ")[0].Trim()));
        Assert.Contains(lines, l => l.Contains("SQL Server 2019 (major version 15), Developer Edition (64-bit)", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("databases_backup_restore_throughput present", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Check_reports_a_wait_filter_whose_keys_a_cumulative_update_moved_with_the_reinstall_command()
    {
        // Given: installed when BACKUPIO was key 103; after the update 103 is LATCH_EX and BACKUPIO is 105
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        sql.InstalledWaitTypes = new Dictionary<int, string>(sql.WaitTypes);
        sql.WaitTypes[103] = "LATCH_EX";
        sql.WaitTypes.Remove(140);
        sql.WaitTypes[105] = "BACKUPIO";
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check");

        // Then: a warning naming both sides of the drift, and the one command that repairs it
        Assert.Equal(0, run.ExitCode);
        var line = Assert.Single(Lines(run.Output), l => l.StartsWith("WARN  session filter", StringComparison.Ordinal));
        Assert.Contains("wait_info filters key 103, which now means LATCH_EX, not a backup wait", line, StringComparison.Ordinal);
        Assert.Contains("wait_info misses BACKUPIO (key 105 on this build)", line, StringComparison.Ordinal);
        Assert.DoesNotContain("wait_info_external", line, StringComparison.Ordinal);
        Assert.Contains($"fix: backupxe session install --server {server.Server}", run.Output, StringComparison.Ordinal);
        Assert.Contains(server.Requests, r => r.Text.Contains("sys.server_event_session_events", StringComparison.Ordinal)
            && r.Text.Contains("DECLARE @SessionName sysname = N'BackupXe';", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Check_passes_a_wait_filter_installed_on_this_build()
    {
        // Given: installed by `session install` on this build
        var sql = new ScriptedSqlServer();
        await using var server = Start(sql);
        Assert.Equal(0, (await RunAsync(server, "session", "install")).ExitCode);

        // When
        var run = await RunAsync(server, "check");

        // Then
        Assert.Contains(Lines(run.Output), l => l.StartsWith("PASS  session filter", StringComparison.Ordinal)
            && l.Contains("wait_info and wait_info_external wait keys match this build's wait_types map", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Session_status_lists_each_drift_of_a_named_session_and_its_repair()
    {
        // Given: a session named with a space, installed before a key was reused
        var sql = new ScriptedSqlServer { SessionName = "Backup trace", SessionExists = true, SessionRunning = true };
        sql.InstalledWaitTypes = new Dictionary<int, string>(sql.WaitTypes);
        sql.WaitTypes.Remove(512);
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "status", "--session-name", "Backup trace");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("    wait_info_external filters key 512, which this build's wait_types map does not have", run.Output, StringComparison.Ordinal);
        Assert.Contains($"  Repair (re-creates it with this build's keys): backupxe session install --server {server.Server} --session-name \"Backup trace\"", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_names_a_managed_instance_by_engine_edition_and_says_what_applies_there()
    {
        // Given: engine edition 8, which reports Azure's version number 12
        await using var server = Start(new ScriptedSqlServer { MajorVersion = 12, EngineEdition = 8 });

        // When
        var run = await RunAsync(server, "check", "--format", "json");

        // Then
        using var json = JsonDocument.Parse(run.Output);
        var checks = json.RootElement.GetProperty("checks").EnumerateArray().ToDictionary(c => c.GetProperty("name").GetString()!);
        var platform = checks["platform"];
        Assert.Equal("warn", platform.GetProperty("outcome").GetString());
        Assert.Contains("Azure SQL Managed Instance (engine edition 8)", platform.GetProperty("finding").GetString(), StringComparison.Ordinal);
        Assert.Contains("https://", platform.GetProperty("fix").GetString(), StringComparison.Ordinal);
        Assert.DoesNotContain("2014", checks["version"].GetProperty("finding").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_warns_before_a_backup_to_one_s3_url_outgrows_the_parts_it_may_write()
    {
        // Given: msdb's latest full of Sales wrote 85 GiB to one S3 URL; at the default 10 MB a part, an object holds 10,000 parts, 97.7 GiB
        const long GiB = 1L << 30;
        var sql = new ScriptedSqlServer();
        sql.UrlBackups.Add(new UrlBackupRow("Sales", "D", new DateTime(2026, 11, 20, 1, 0, 0), 85 * GiB, 1, "s3://storage.example/backups/Sales_FULL.bak"));
        sql.UrlBackups.Add(new UrlBackupRow("Sales", "L", new DateTime(2026, 11, 28, 23, 45, 0), 2 * GiB, 1, "s3://storage.example/backups/Sales_LOG.trn"));
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check");

        // Then: one warning, for the full only, with the arithmetic and what msdb cannot say
        Assert.Equal(0, run.ExitCode);
        Assert.Single(Lines(run.Output), l => l.StartsWith("WARN  backups to URL", StringComparison.Ordinal));
        var text = Words(run.Output);
        Assert.Contains("WARN backups to URL Sales (full, 2026-11-20): 85 GB written to 1 URL; 1 URL x 10,000 parts x 10 MB = 97.7 GB at the default MAXTRANSFERSIZE (87%), unless the job sets a larger one (msdb does not record it) fix: stripe the backup over more URLs or raise MAXTRANSFERSIZE", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Sales (log", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_reads_a_backup_larger_than_the_default_allows_as_one_with_a_larger_transfer_size()
    {
        // Given: 120 GiB to one S3 URL succeeded, so the job sets MAXTRANSFERSIZE above 10 MB; at 20 MB an object takes 195 GiB
        const long GiB = 1L << 30;
        var fits = new ScriptedSqlServer();
        fits.UrlBackups.Add(new UrlBackupRow("Sales", "D", new DateTime(2026, 11, 20), 120 * GiB, 1, "s3://storage.example/backups/Sales.bak"));
        var tight = new ScriptedSqlServer();
        tight.UrlBackups.Add(new UrlBackupRow("Sales", "D", new DateTime(2026, 11, 20), 170 * GiB, 1, "s3://storage.example/backups/Sales.bak"));
        await using var fitsServer = Start(fits);
        await using var tightServer = Start(tight);

        // When
        var roomy = await RunAsync(fitsServer, "check");
        var near = await RunAsync(tightServer, "check");

        // Then
        Assert.Contains("PASS backups to URL 1 latest backup to URL, each under 80% of what its URLs take; the fullest: Sales (full, 2026-11-20): 120 GB written to 1 URL, more than 1 URL x 10,000 parts x 10 MB = 97.7 GB at the default MAXTRANSFERSIZE, so the job sets a larger one (msdb does not record it); at the largest, 1 URL x 10,000 parts x 20 MB = 195 GB (61%)", Words(roomy.Output), StringComparison.Ordinal);
        Assert.Contains("WARN backups to URL Sales (full, 2026-11-20): 170 GB", Words(near.Output), StringComparison.Ordinal);
        Assert.Contains("(87%)", Words(near.Output), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_json_lists_every_check_with_outcome_and_fix()
    {
        // Given
        var sql = new ScriptedSqlServer { InstantFileInitialization = "N", HistoryRows = 2_500_000 };
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check", "--format", "json");

        // Then
        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        Assert.Equal(0, json.RootElement.GetProperty("failed").GetInt32());
        var checks = json.RootElement.GetProperty("checks").EnumerateArray().ToDictionary(c => c.GetProperty("name").GetString()!);
        Assert.Equal("warn", checks["capture session"].GetProperty("outcome").GetString());
        Assert.Contains("backupxe session install", checks["capture session"].GetProperty("fix").GetString());
        Assert.Equal("warn", checks["instant file init"].GetProperty("outcome").GetString());
        Assert.Contains("SeManageVolumePrivilege", checks["instant file init"].GetProperty("fix").GetString());
        Assert.Equal("warn", checks["msdb history"].GetProperty("outcome").GetString());
        Assert.Contains("sp_delete_backuphistory", checks["msdb history"].GetProperty("fix").GetString());
        Assert.Equal(JsonValueKind.Null, checks["version"].GetProperty("fix").ValueKind);
    }

    [Fact]
    public async Task Check_names_the_documented_defects_of_the_build_the_login_response_gives()
    {
        // Given: the double's login acknowledgement says 15.0.2000, SQL Server 2019 RTM
        await using var server = Start(new ScriptedSqlServer());

        // When
        var run = await RunAsync(server, "check", "--format", "json");

        // Then: a warning that names the fixing update and its page, and the run still passes
        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        var checks = json.RootElement.GetProperty("checks").EnumerateArray().ToDictionary(c => c.GetProperty("name").GetString()!);
        Assert.Equal("warn", checks["known defects"].GetProperty("outcome").GetString());
        Assert.Contains("fixed in SQL Server 2019 CU16 (15.0.4223.1) (KB5014298)", checks["known defects"].GetProperty("finding").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_on_sql_server_2014_fails_the_version_and_reads_the_trace_flags()
    {
        // Given
        var sql = new ScriptedSqlServer { MajorVersion = 12, InstantFileInitialization = null };
        sql.GlobalTraceFlags.AddRange([3004, 3605]);
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check");

        // Then
        Assert.Equal(2, run.ExitCode);
        Assert.Contains(Lines(run.Output), l => l.StartsWith("FAIL  version", StringComparison.Ordinal) && l.Contains("SQL Server 2014", StringComparison.Ordinal));
        Assert.Contains(Lines(run.Output), l => l.StartsWith("WARN  trace flags", StringComparison.Ordinal) && l.Contains("3014, 3213", StringComparison.Ordinal));
        Assert.Contains("fix: DBCC TRACEON(3014, 3213, -1);", run.Output);
        Assert.Contains(Lines(run.Output), l => l.StartsWith("WARN  instant file init", StringComparison.Ordinal));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("dm_xe_session_targets", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Check_without_view_server_state_fails_that_permission_and_warns_on_each_dmv_it_cannot_read()
    {
        // Given
        var sql = new ScriptedSqlServer().Deny("dm_os_sys_memory").Deny("dm_xe_session_targets");
        sql.Permissions.Remove("VIEW SERVER STATE");
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check");

        // Then
        Assert.Equal(2, run.ExitCode);
        var lines = Lines(run.Output);
        Assert.Contains(lines, l => l.StartsWith("FAIL  permissions", StringComparison.Ordinal) && l.Contains("VIEW SERVER STATE", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Trim() == $"fix: GRANT VIEW SERVER STATE TO [{TdsClient.User}];");
        Assert.Contains(lines, l => l.StartsWith("WARN  memory", StringComparison.Ordinal) && l.Contains("error 300", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("WARN  capture session", StringComparison.Ordinal) && l.Contains("could not check", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("PASS  msdb history", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Check_stops_with_one_line_when_the_connection_drops()
    {
        // Given
        var sql = new ScriptedSqlServer().DropConnectionOn("dm_os_sys_memory");
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "check");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Single(Lines(run.Error));
        Assert.Empty(run.Output);
    }

    [Theory]
    [InlineData("session", "install")]
    [InlineData("check")]
    public async Task A_dead_address_gives_one_line_and_exit_1_within_the_connect_timeout(params string[] verb)
    {
        // Given nothing listens on port 1
        var watch = Stopwatch.StartNew();

        // When
        var run = await CliRun.RunAsync([.. verb, "--server", "127.0.0.1,1", "--user", "sa", "--password-env", TdsClient.PasswordVariable, "--connect-timeout", "2"]);

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.StartsWith("backupxe: cannot reach 127.0.0.1,1: ", line);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(6), $"took {watch.Elapsed}");
        AssertNoSecrets(run);
    }

    [Theory]
    [InlineData("check")]
    [InlineData("session", "status")]
    [InlineData("watch")]
    [InlineData("history", "import")]
    public async Task A_refused_port_fails_fast_with_the_default_timeout_and_one_wording_in_every_verb(params string[] verb)
    {
        // Given nothing listens on port 1, and the default 15 s connect timeout
        var watch = Stopwatch.StartNew();

        // When
        var run = await CliRun.RunAsync([.. verb, "--server", "127.0.0.1,1", "--user", "sa", "--password-env", TdsClient.PasswordVariable]);

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.Equal("backupxe: cannot reach 127.0.0.1,1: nothing listens on 127.0.0.1 port 1 (connection refused): is SQL Server running, and on that port?", line);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(8), $"took {watch.Elapsed}");
    }

    [Fact]
    public async Task A_host_that_does_not_resolve_is_said_at_once()
    {
        var run = await CliRun.RunAsync("session", "status", "--server", "no-such-host.invalid", "--user", "sa", "--password-env", TdsClient.PasswordVariable);

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("backupxe: cannot reach no-such-host.invalid: the host name 'no-such-host.invalid' does not resolve", Assert.Single(Lines(run.Error)));
    }

    [Fact]
    public async Task Check_asked_for_json_answers_json_when_the_server_cannot_be_reached()
    {
        var run = await CliRun.RunAsync("check", "--server", "127.0.0.1,1", "--user", "sa", "--password-env", TdsClient.PasswordVariable, "--format", "json");

        Assert.Equal(1, run.ExitCode);
        using var json = System.Text.Json.JsonDocument.Parse(run.Output);
        Assert.False(json.RootElement.GetProperty("reached").GetBoolean());
        Assert.Equal("127.0.0.1,1", json.RootElement.GetProperty("server").GetString());
        Assert.Contains("connection refused", json.RootElement.GetProperty("error").GetString());
    }

    [Fact]
    public async Task Trust_server_certificate_and_no_encryption_are_warned_about()
    {
        // Given / When
        var trust = await CliRun.RunAsync("check", "--server", "127.0.0.1,1", "--trust-server-certificate", "--connect-timeout", "1");
        var clear = await CliRun.RunAsync("check", "--server", "127.0.0.1,1", "--no-encryption", "--connect-timeout", "1");

        // Then
        Assert.Contains("warning: --trust-server-certificate accepts any certificate", trust.Error);
        Assert.Contains("warning: encryption is off", clear.Error);
    }

    [Fact]
    public async Task Strict_encryption_against_a_server_without_TDS_8_sends_no_login_and_fails_in_one_line()
    {
        // Given: the double speaks TDS 7.x without TLS, as a server before 2022 does; Strict starts with a TLS handshake
        var sql = new ScriptedSqlServer();
        await using var server = Start(sql);

        // When
        var run = await CliRun.RunAsync("check", "--server", server.Server, "--user", TdsClient.User, "--password-env", TdsClient.PasswordVariable,
            "--strict-encryption", "--host-name-in-certificate", "sql01.corp.example", "--connect-timeout", "3");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Empty(server.Logins);
        AssertNoSecrets(run);
        Assert.StartsWith($"backupxe: ", Assert.Single(Lines(run.Error)), StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Strict_encryption_with_no_encryption_is_a_usage_error_before_any_connection()
    {
        // Given
        var sql = new ScriptedSqlServer();
        await using var server = Start(sql);

        // When
        var run = await CliRun.RunAsync([.. TdsClient.CliArguments(server).Prepend("check"), "--strict-encryption"]);

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Equal("backupxe: --strict-encryption and --no-encryption contradict each other: choose one.", Assert.Single(Lines(run.Error)));
        Assert.Empty(server.Logins);
    }

    [Fact]
    public async Task Install_whose_session_cannot_start_says_in_one_line_that_nothing_was_left()
    {
        // Given: CREATE succeeds, START fails on the event_file's folder (25602), and the script drops the session again
        var sql = new ScriptedSqlServer().FailStart();
        await using var server = Start(sql);

        // When
        var run = await RunAsync(server, "session", "install");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.Contains("encountered a configuration error during initialization", line, StringComparison.Ordinal);
        Assert.Contains("(error 25602)", line, StringComparison.Ordinal);
        Assert.EndsWith("no session [BackupXe] was left on the server.", line, StringComparison.Ordinal);
        Assert.False(sql.SessionExists);
    }

    [Fact]
    public async Task Watch_refuses_to_start_a_session_for_the_ring_buffer_transport()
    {
        var run = await CliRun.RunAsync("watch", "--server", "127.0.0.1,1", "--transport", "ring_buffer", "--start-session");

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("--transport ring_buffer reads an existing session's ring_buffer target", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task There_is_no_password_option()
    {
        // Given / When
        var run = await CliRun.RunAsync("session", "status", "--server", "127.0.0.1,1", "--user", "sa", "--password", TdsClient.Password);

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--password", run.Error);
    }

    private static TdsServerDouble Start(ScriptedSqlServer sql)
    {
        var server = TdsServerDouble.Start(sql.Script);
        server.MajorVersion = sql.MajorVersion;
        return server;
    }

    private static async Task<CliRun> RunAsync(TdsServerDouble server, params string[] verb)
    {
        var run = await CliRun.RunAsync([.. verb, .. TdsClient.CliArguments(server)]);
        AssertNoSecrets(run);
        // The double is reached without TLS, so the CLI must have said so.
        Assert.Contains("warning: encryption is off", run.Error);
        return run with { Error = string.Join('\n', Lines(run.Error).Where(l => !l.Contains("warning: encryption is off", StringComparison.Ordinal))) };
    }

    private static void AssertNoSecrets(CliRun run)
    {
        foreach (var text in new[] { run.Output, run.Error })
        {
            Assert.DoesNotContain(TdsClient.Password, text);
            Assert.DoesNotContain("Password=", text, StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain("Pwd=", text, StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain("Data Source=", text, StringComparison.OrdinalIgnoreCase);
        }
    }

    private static string Words(string text) => System.Text.RegularExpressions.Regex.Replace(text, @"\s+", " ");

    private static List<string> Lines(string text) => [.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.TrimEnd('\r'))];
}
