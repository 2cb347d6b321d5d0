using BackupXe.SqlServer.Preflight;
using Xunit;

namespace BackupXe.Tests.SqlServer.Preflight;

/// <summary><c>check</c> lists the documented defects of the build the login response gives (docs/known-issues.md).</summary>
public sealed class KnownDefectsCheckTests
{
    [Fact]
    public void A_sql_server_2019_build_before_cu16_is_warned_with_the_update_and_its_page()
    {
        // Given: SqlConnection.ServerVersion's form of a 2019 CU15 build
        var check = ServerPreflight.KnownDefectsOf(ServerPreflight.LoginBuild("15.00.4198"));

        // Then
        Assert.Equal(PreflightOutcome.Warn, check.Outcome);
        Assert.Contains("tde-compressed-restore-3241: fixed in SQL Server 2019 CU16 (15.0.4223.1) (KB5014298)", check.Finding, StringComparison.Ordinal);
        Assert.Contains("docs/known-issues.md", check.Fix, StringComparison.Ordinal);
    }

    [Fact]
    public void A_fixed_2019_build_passes_naming_only_what_a_later_release_fixes()
    {
        var check = ServerPreflight.KnownDefectsOf(ServerPreflight.LoginBuild("15.00.4223"));

        Assert.Equal(PreflightOutcome.Pass, check.Outcome);
        Assert.Contains("buffer-pool-scan-2019", check.Finding, StringComparison.Ordinal);
        Assert.DoesNotContain("KB5014298", check.Finding, StringComparison.Ordinal);
    }

    [Fact]
    public void A_build_no_row_affects_or_no_build_at_all_passes()
    {
        Assert.Equal(PreflightOutcome.Pass, ServerPreflight.KnownDefectsOf(ServerPreflight.LoginBuild("17.00.1000")).Outcome);
        Assert.Contains("none of docs/known-issues.md", ServerPreflight.KnownDefectsOf(ServerPreflight.LoginBuild("17.00.1000")).Finding, StringComparison.Ordinal);
        Assert.Contains("cannot tell", ServerPreflight.KnownDefectsOf(ServerPreflight.LoginBuild(null)).Finding, StringComparison.Ordinal);
    }

    [Fact]
    public void A_defect_without_a_fixing_update_passes_with_the_pages_workaround()
    {
        var check = ServerPreflight.KnownDefectsOf(ServerPreflight.LoginBuild("16.00.4225"));

        Assert.Equal(PreflightOutcome.Pass, check.Outcome);
        Assert.Contains("vdi-striped-delayed-log-pinning-2022: no update fixes it; the page's workaround: trace flag 3471", check.Finding, StringComparison.Ordinal);
    }
}
