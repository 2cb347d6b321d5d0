using System.Text.RegularExpressions;
using BackupXe.SqlServer.Sessions;
using Xunit;

namespace BackupXe.Tests.SqlServer.Sessions;

/// <summary>A stored wait filter compared with this build's wait_types map (SessionDrift).</summary>
public sealed class SessionDriftTests
{
    [Fact]
    public void The_wait_names_compared_are_the_install_scripts_own()
    {
        // The IN list of sessions/backupxe-session.sql, read from the shipped text.
        var list = Regex.Match(SessionScripts.Install, @"mv\.map_value IN \((?<names>[^)]*)\)", RegexOptions.None, TimeSpan.FromSeconds(1)).Groups["names"].Value;
        var names = Regex.Matches(list, "N'([A-Z_]+)'", RegexOptions.None, TimeSpan.FromSeconds(1)).Select(m => m.Groups[1].Value);

        Assert.Equal(names.Order(), CapturedWaits.Names.Order());
    }

    [Fact]
    public void The_install_script_never_filters_wait_events_on_the_statement_text()
    {
        // docs/known-issues.md: a wait_info filter on sql_text (like_i_sql_unicode_string) can crash the server.
        Assert.DoesNotContain("sql_text", SessionScripts.Install, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("like_i_sql_unicode_string", SessionScripts.Install, StringComparison.OrdinalIgnoreCase);
    }

    [Theory]
    [InlineData("([opcode]=(1) AND ([wait_type]=(98) OR [wait_type]=(102)))", "98,102")]
    [InlineData("([package0].[equal_uint64]([opcode],(1)) AND ([package0].[equal_uint64]([wait_type],(98))))", "98")]
    public void Keys_are_read_from_either_stored_form(string predicate, string keys)
        => Assert.Equal(keys.Split(',').Select(long.Parse).Order(), SessionDrift.ReadKeys(predicate)!.Order());

    [Theory]
    [InlineData("([wait_type]>(31) AND [wait_type]<(38))")]
    [InlineData("([opcode]=(1))")]
    [InlineData(null)]
    public void A_filter_that_is_not_a_list_of_equalities_is_not_read(string? predicate) => Assert.Null(SessionDrift.ReadKeys(predicate));

    [Fact]
    public void A_range_filter_is_reported_as_uncheckable_not_as_matching()
    {
        var catalog = new XeCatalog(new Dictionary<long, string> { [102] = "BACKUPBUFFER" }, new HashSet<string> { "sqlos.wait_info" }, new HashSet<string> { "wait_info.wait_type" });

        var drift = SessionDrift.Compare([new InstalledEvent("sqlos", "wait_info", "([wait_type]>(100))")], catalog);

        Assert.Contains(drift.Drifts, d => d.Contains("cannot be checked", StringComparison.Ordinal));
    }

    [Fact]
    public void An_event_this_build_no_longer_offers_is_a_drift()
    {
        var catalog = new XeCatalog(new Dictionary<long, string>(), new HashSet<string>(), new HashSet<string>());

        var drift = SessionDrift.Compare([new InstalledEvent("sqlserver", "database_backup_restore_throughput", null)], catalog);

        Assert.Equal(["event sqlserver.database_backup_restore_throughput is not offered by this build"], drift.Drifts);
    }
}
