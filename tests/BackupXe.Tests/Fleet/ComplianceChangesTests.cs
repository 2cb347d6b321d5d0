using BackupXe.Core.Fleet;
using Xunit;

namespace BackupXe.Tests.Fleet;

/// <summary>Each change of a database's compliance said once (docs/fleet.md, "Change events"), nothing for an unchanged state.</summary>
public sealed class ComplianceChangesTests
{
    private static readonly DateTime At = new(2026, 11, 20, 5, 0, 0);
    private static readonly AppliedTarget Hour = new(TimeSpan.FromHours(1), "default");

    private static DatabaseCompliance Sales(ComplianceState rpo, ChainState chain = ChainState.Whole, bool restored = true, Guid? group = null, string instance = "sql-a") =>
        new(instance, "Sales", "FULL", At, null, At, new RecoveryFinding(rpo, TimeSpan.FromMinutes(rpo == ComplianceState.Outside ? 90 : 30), Hour, At, $"rpo {rpo}"),
            new RecoveryFinding(ComplianceState.NoTarget, null, null, null, "no rto target"), new ChainFinding(chain, At, $"chain {chain}"),
            new VerificationFinding(restored, At, restored ? "restored" : "never"))
        {
            GroupDatabaseId = group,
        };

    [Fact]
    public void A_database_first_seen_in_order_says_nothing_and_its_first_fault_once()
    {
        var changes = new ComplianceChanges();

        var first = changes.Observe("sql-a", [Sales(ComplianceState.Within)]);
        var second = changes.Observe("sql-a", [Sales(ComplianceState.Outside)]);
        var third = changes.Observe("sql-a", [Sales(ComplianceState.Outside)]);

        Assert.Empty(first);
        var change = Assert.Single(second);
        Assert.Equal((ComplianceAspect.Rpo, "within", "outside", true, "rpo Outside"), (change.Aspect, change.From, change.To, change.Worse, change.Evidence));
        Assert.Empty(third);
    }

    [Fact]
    public void A_database_first_seen_out_of_order_is_said_at_once_and_its_recovery_as_a_change_for_the_better()
    {
        var changes = new ComplianceChanges();

        var first = changes.Observe("sql-a", [Sales(ComplianceState.Outside, ChainState.Gap, restored: false)]);
        var mended = changes.Observe("sql-a", [Sales(ComplianceState.Within, ChainState.Gap, restored: false)]);

        Assert.Equal(["rpo none->outside", "chain none->gap", "restored none->never-restored"], first.Select(c => $"{Formatting(c.Aspect)} {c.From}->{c.To}"));
        var change = Assert.Single(mended);
        Assert.Equal(("outside", "within", false), (change.From, change.To, change.Worse));
    }

    [Fact]
    public void A_group_database_is_one_database_whatever_its_name_and_each_instance_keeps_its_own_states()
    {
        var group = Guid.Parse("5a1e5000-0000-4000-8000-0000000000a9");
        var changes = new ComplianceChanges();

        changes.Observe("sql-a", [Sales(ComplianceState.Within, group: group)]);
        var renamed = changes.Observe("sql-a", [Sales(ComplianceState.Within, group: group) with { Database = "Sales_renamed" }]);
        var otherInstance = changes.Observe("sql-b", [Sales(ComplianceState.Outside, group: group, instance: "sql-b")]);

        Assert.Empty(renamed);
        Assert.Equal("none", Assert.Single(otherInstance).From);
    }

    private static string Formatting(ComplianceAspect aspect) => BackupXe.Core.Formatting.Kebab.Of(aspect);
}
