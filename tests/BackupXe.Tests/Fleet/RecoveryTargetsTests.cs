using BackupXe.Core.Fleet;
using Xunit;

namespace BackupXe.Tests.Fleet;

public sealed class RecoveryTargetsTests
{
    private static readonly RecoveryTargets Targets = new(TimeSpan.FromHours(24), TimeSpan.FromHours(4),
    [
        new RecoveryTargetRule(null, null, "FULL", TimeSpan.FromMinutes(60), null),
        new RecoveryTargetRule("sql01", null, null, TimeSpan.FromMinutes(30), null),
        new RecoveryTargetRule(null, "Sales*", null, TimeSpan.FromMinutes(15), TimeSpan.FromHours(1)),
        new RecoveryTargetRule("sql02", null, "FULL", TimeSpan.FromMinutes(45), null),
    ]);

    [Theory]
    [InlineData("sql09", "Hr", "SIMPLE", 24 * 60, "default")]
    [InlineData("sql09", "Hr", "FULL", 60, "rule 0")]
    [InlineData("sql01", "Hr", "FULL", 30, "rule 1")]
    [InlineData("sql01", "salesDB", "FULL", 15, "rule 2")]
    [InlineData("sql02", "Hr", "FULL", 45, "rule 3")]
    public void The_most_specific_rule_that_sets_a_target_wins(string instance, string database, string model, int minutes, string from)
    {
        var rpo = Targets.RpoFor(instance, database, model);

        Assert.Equal(TimeSpan.FromMinutes(minutes), rpo!.Value);
        Assert.Equal(from, rpo.From);
    }

    [Fact]
    public void A_rule_without_a_target_leaves_it_to_a_less_specific_one()
    {
        Assert.Equal(new AppliedTarget(TimeSpan.FromHours(4), "default"), Targets.RtoFor("sql01", "Hr", "FULL"));
        Assert.Equal(new AppliedTarget(TimeSpan.FromHours(1), "rule 2"), Targets.RtoFor("sql01", "Sales", null));
        Assert.Null(new RecoveryTargets(null, null, []).RtoFor("sql01", "Sales", null));
    }

    [Theory]
    [InlineData("Sales*", "SalesDB", true)]
    [InlineData("Sales*", "Sales", true)]
    [InlineData("Sales?", "SalesDB", false)]
    [InlineData("*_archive", "Orders_ARCHIVE", true)]
    [InlineData("a*b*c", "aXbYbZc", true)]
    [InlineData("a*b*c", "aXbYbZ", false)]
    public void A_name_pattern_matches_the_whole_name_without_case(string pattern, string name, bool matches)
        => Assert.Equal(matches, NamePattern.Matches(pattern, name));

    [Fact]
    public void Each_problem_names_its_key()
    {
        var problems = RecoveryTargets.Problems("BackupXe:Targets", -1, double.NaN,
        [
            (null, null, null, 10, 0),
            ("sql01", " ", "FAST", 0, 0),
            (null, "Sales*", null, 600_000, 30),
        ]).ToList();

        Assert.Equal(
        [
            "BackupXe:Targets:RpoMinutes must be from 0 (no target) to 525600 (a year); it is -1.",
            "BackupXe:Targets:RtoMinutes must be from 0 (no target) to 525600 (a year); it is NaN.",
            "BackupXe:Targets:Rules:0 matches every database: give it an Instance, a Database pattern or a RecoveryModel (the defaults are BackupXe:Targets:RpoMinutes and BackupXe:Targets:RtoMinutes).",
            "BackupXe:Targets:Rules:1 sets no target: give it RpoMinutes, RtoMinutes or both.",
            "BackupXe:Targets:Rules:1:Database must not be empty.",
            "BackupXe:Targets:Rules:1:RecoveryModel must be one of FULL, BULK_LOGGED, SIMPLE; it is 'FAST'.",
            "BackupXe:Targets:Rules:2:RpoMinutes must be from 0 (no target) to 525600 (a year); it is 600000.",
        ], problems);
    }
}
