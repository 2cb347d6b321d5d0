using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// A documented defect is named only when the input's build is affected and the operation shows its symptom: KB5014298's
/// error 3241 on SQL Server 2019 before CU16, and never on CU16, never without the error, never without a build.
/// </summary>
public sealed class KnownDefectsTests
{
    private static readonly BackupDiagnostician Diagnostician = new();

    private static OperationReport FailedRestore(string? build, int error) => Restore() with
    {
        Status = OperationStatus.Failed,
        FailureError = new FailureErrorReport(error, 16, "The media family on device 'D:\\b\\Sales.bak' is incorrectly formed. SQL Server cannot process this media family.", null),
        Server = build is null ? new ServerVersion(15, 0, null, "a database version") : ServerVersion.FromBuild(build, "the ERRORLOG's version banner, line 1"),
    };

    private static List<Recommendation> Hints(OperationReport operation) =>
        [.. Diagnostician.Diagnose(operation).Recommendations.Where(r => r.Id == "known-defect")];

    [Fact]
    public void A_restore_failing_with_3241_on_sql_server_2019_cu15_is_named_as_the_defect_cu16_fixes()
    {
        // Given: 15.0.4198.2 is SQL Server 2019 CU15, before the fix
        var operation = FailedRestore("15.0.4198.2", 3241);

        // When
        var hints = Hints(operation);

        // Then
        var hint = Assert.Single(hints);
        Assert.StartsWith("Known defect, fixed in SQL Server 2019 CU16 (15.0.4223.1) (KB5014298,", hint.Text, StringComparison.Ordinal);
        Assert.Contains("docs/known-issues.md", hint.Text, StringComparison.Ordinal);
        Assert.Equal(GainBasis.Published, hint.ExpectedGain.Basis);
    }

    [Fact]
    public void The_same_failure_on_the_fixed_build_gets_no_hint()
    {
        Assert.Empty(Hints(FailedRestore("15.0.4223.1", 3241)));
        Assert.Empty(Hints(FailedRestore("15.0.4312.2", 3241)));
    }

    [Fact]
    public void An_affected_build_without_the_symptom_gets_no_hint()
    {
        // Given: another error on the affected build, and a restore that completed
        var otherError = FailedRestore("15.0.4198.2", 3201);
        var completed = Restore() with { Server = ServerVersion.FromBuild("15.0.4198.2", "banner") };

        // Then
        Assert.Empty(Hints(otherError));
        Assert.Empty(Hints(completed));
    }

    [Fact]
    public void A_release_known_without_its_build_cannot_tell_and_gets_no_hint()
    {
        Assert.Empty(Hints(FailedRestore(null, 3241)));
    }

    [Fact]
    public void The_new_format_row_names_9004_on_an_older_instance_and_the_2017_cu16_row_only_its_own_build()
    {
        // Given
        var newFormat = FailedRestore("15.0.4153.1", 9004);
        var on2017Cu16 = FailedRestore("14.0.3223.3", 3013);
        var on2017Cu17 = FailedRestore("14.0.3238.1", 3013);

        // Then
        Assert.Contains("tde-compressed-new-format", KnownDefects.ShownBy(newFormat, Diagnostician.Diagnose(newFormat).Verdict).Select(d => d.Id));
        Assert.Equal(new[] { "tde-compressed-2017-cu16" }, KnownDefects.ShownBy(on2017Cu16, Diagnostician.Diagnose(on2017Cu16).Verdict).Select(d => d.Id));
        Assert.Empty(KnownDefects.ShownBy(on2017Cu17, Diagnostician.Diagnose(on2017Cu17).Verdict));
    }

    [Fact]
    public void The_defects_of_a_build_are_those_whose_range_holds_it()
    {
        Assert.Equal(
            new[]
            {
                "tde-compressed-restore-3241", "tde-compressed-new-format", "buffer-pool-scan-2019", "tde-compressed-log-misaligned-io-2019",
                "vdi-compressed-filestream-3241-2019", "vss-freeze-never-thawed-2019", "backup-pfs-nonyielding-2019", "vdi-striped-delayed-log-pinning-2019",
            },
            KnownDefects.For(ServerVersion.FromBuild("15.0.2000.5", "login")).Select(d => d.Id));
        Assert.Equal(new[] { "buffer-pool-scan-2019", "vdi-striped-delayed-log-pinning-2019" }, KnownDefects.For(ServerVersion.FromBuild("15.0.4223.1", "login")).Select(d => d.Id));
        Assert.Equal(new[] { "vdi-striped-delayed-log-pinning-2022" }, KnownDefects.For(ServerVersion.FromBuild("16.0.4225.2", "login")).Select(d => d.Id));
        Assert.Empty(KnownDefects.For(ServerVersion.FromBuild("17.0.1000.7", "login")));
        Assert.Empty(KnownDefects.For(null));
    }

    [Fact]
    public void A_defect_no_update_fixes_gives_the_pages_workaround_not_a_fixed_build()
    {
        // Given: error 3456 (could not redo log record) restoring on SQL Server 2022
        var operation = FailedRestore("16.0.4225.2", 3456);

        // When
        var hint = Assert.Single(Hints(operation));

        // Then
        Assert.StartsWith("Known defect, no update fixes it; the page's workaround: trace flag 3471 (full backups) or 3475", hint.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("fixed in", hint.Text, StringComparison.Ordinal);
        Assert.Contains("SQL Server 2022 builds 16.0.0 and later", hint.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void At_least_fifteen_defects_are_cataloged_each_once()
    {
        Assert.True(KnownDefects.All.Count >= 15, $"{KnownDefects.All.Count} rows");
        Assert.Equal(KnownDefects.All.Count, KnownDefects.All.Select(d => d.Id).Distinct().Count());
    }
}
