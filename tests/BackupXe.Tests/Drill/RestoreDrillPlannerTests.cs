using BackupXe.Core.Drill;
using BackupXe.Core.Parsing;
using BackupXe.Core.Restores;
using BackupXe.Core.Tuning;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.Drill;

/// <summary>
/// The drill's plan from a chain <see cref="RestorePlanner"/> chose, and its statements through Microsoft's T-SQL parser
/// for SQL Server 2016 to 2019 (as TsqlParsingTests does for every statement BackupXe sends), with names and paths that
/// carry brackets and quotes read back intact from the parsed statement.
/// </summary>
public sealed class RestoreDrillPlannerTests
{
    private const string Odd = "Sales]DB 'EU'";
    private static readonly DateTime Night = new(2026, 11, 28, 1, 0, 0);
    private static readonly DateTime Now = new(2026, 11, 29, 8, 15, 0, DateTimeKind.Utc);

    private static readonly BackupSetRow[] Sets =
    [
        new(Odd, 'D', false, 1000, 2000, null, 1000, "FULL", Night, Night.AddMinutes(10), 100L << 30),
        new(Odd, 'I', false, 3000, 3100, 1000, 3000, "FULL", Night.AddHours(6), Night.AddHours(6).AddMinutes(1), 10L << 30),
        new(Odd, 'L', false, 1500, 3500, 1000, null, "FULL", Night.AddHours(7), Night.AddHours(7).AddMinutes(1), 1L << 30),
        new(Odd, 'L', false, 3500, 4500, 1000, null, "FULL", Night.AddHours(8), Night.AddHours(8).AddMinutes(1), 1L << 30),
    ];

    private static readonly DrillMedia[] Media =
    [
        new('D', 1000, 2000, 1, [@"\\backup01\it's\full_1.bak", @"\\backup01\it's\full_2.bak"], [DeviceKind.Disk, DeviceKind.Disk]),
        new('I', 3000, 3100, 1, [@"\\backup01\it's\diff.bak"], [DeviceKind.Disk]),
        new('L', 1500, 3500, 1, [@"\\backup01\it's\log.trn"], [DeviceKind.Disk]),
        new('L', 3500, 4500, 2, [@"\\backup01\it's\log.trn"], [DeviceKind.Disk]),
    ];

    private static readonly BackupFileEntry[] Files = [new("Sales'Data", "D", 200L << 30), new("Sales]Log", "L", 20L << 30)];

    private static readonly ServerIdentity Prod = new("PROD01", "PROD01", null);
    private static readonly ServerIdentity Test = new(@"TEST01\DRILL", "TEST01", "DRILL");

    private static RestoreDrillPlan Plan(DrillRequest? request = null, ServerIdentity? source = null, DrillTargetFacts? facts = null, IReadOnlyList<DrillMedia>? media = null)
    {
        var chain = RestorePlanner.Plan(Sets).Single();
        return RestoreDrillPlanner.Build(
            request ?? new DrillRequest(Odd, null, @"D:\Scratch\", @"L:\Scratch", null, CheckDb: true, Keep: false, AllowSourceServer: false),
            "TEST01,1433", "PROD01", source ?? Prod, chain, media ?? Media, (Files, null),
            facts ?? new DrillTargetFacts(Test, @"D:\Data", @"L:\Log", CanCreateDatabase: true, ScratchExists: false, SourceNameExists: false) { FreeSpaceOf = _ => FreeSpace.Of(1L << 40) },
            null, Now);
    }

    [Fact]
    public void The_plan_restores_full_differential_and_logs_into_a_new_scratch_name_every_file_moved_and_never_replace()
    {
        // When
        var plan = Plan();

        // Then
        Assert.Empty(plan.Refusals);
        Assert.Equal("Sales]DB 'EU'_drill_202611290815", plan.Scratch);
        Assert.Equal(["restore full", "restore differential", "restore log", "restore log", "recovery", "checkdb"], plan.Steps.Select(s => s.Phase));
        Assert.Equal(12, plan.Preflight.Count);
        Assert.Equal([@"D:\Scratch\Sales]DB 'EU'_drill_202611290815_1.mdf", @"L:\Scratch\Sales]DB 'EU'_drill_202611290815_2.ldf"], plan.Moves.Select(m => m.Path));
        Assert.All(plan.Steps.Concat(plan.Preflight), s => Assert.DoesNotContain("REPLACE", s.Sql, StringComparison.OrdinalIgnoreCase));
        Assert.Equal([200L << 30, 20L << 30], plan.Space.Select(s => s.NeededBytes));
    }

    [Fact]
    public void Every_statement_parses_for_SQL_Server_2016_to_2019_and_reads_back_the_names_and_paths_it_quoted()
    {
        // Given
        var plan = Plan(new DrillRequest(Odd, null, @"D:\Scratch\", @"L:\Scratch", Night.AddHours(7).AddSeconds(30), true, false, false));
        var statements = plan.Preflight.Concat(plan.Steps).Select(s => s.Sql).Append(plan.DropSql).ToList();

        // Then
        foreach (var sql in statements)
        {
            foreach (TSqlParser parser in new TSqlParser[] { new TSql130Parser(true), new TSql140Parser(true), new TSql150Parser(true) })
            {
                parser.Parse(new StringReader(sql), out var errors);
                Assert.True(errors.Count == 0, $"{parser.GetType().Name}: {sql}: " + string.Join("; ", errors.Select(e => e.Message)));
            }
        }

        var full = (RestoreStatement)((TSqlScript)new TSql150Parser(true).Parse(new StringReader(plan.Steps[0].Sql), out _)).Batches[0].Statements[0];
        Assert.Equal(plan.Scratch, full.DatabaseName.Value);
        Assert.Equal([@"\\backup01\it's\full_1.bak", @"\\backup01\it's\full_2.bak"], full.Devices.Select(d => ((StringLiteral)d.PhysicalDevice).Value));
        var moves = full.Options.OfType<MoveRestoreOption>().ToList();
        Assert.Equal(["Sales'Data", "Sales]Log"], moves.Select(m => ((StringLiteral)m.LogicalFileName).Value));
        Assert.Equal(plan.Moves.Select(m => m.Path), moves.Select(m => ((StringLiteral)m.OSFileName).Value));
        Assert.Contains(full.Options, o => o.OptionKind == RestoreOptionKind.NoRecovery);
        Assert.Contains("STOPAT = N'2026-11-28T08:00:30'", plan.Steps.Single(s => s.Phase == "restore log").Sql, StringComparison.Ordinal);
    }

    [Fact]
    public void The_source_server_is_refused_unless_allowed_whatever_name_reached_it()
    {
        // Given: the target reports the source's machine and instance
        var same = new ServerIdentity("PROD01", "prod01", "MSSQLSERVER");
        var facts = new DrillTargetFacts(same, @"D:\Data", @"L:\Log", true, false, true) { FreeSpaceOf = _ => FreeSpace.Of(1L << 40) };

        // When
        var refused = Plan(source: Prod, facts: facts);
        var allowed = Plan(new DrillRequest(Odd, null, null, null, null, false, false, AllowSourceServer: true), Prod, facts);

        // Then
        Assert.Contains(refused.Refusals, r => r.Contains("is the source server", StringComparison.Ordinal) && r.Contains("--allow-source-server", StringComparison.Ordinal));
        Assert.Empty(allowed.Refusals);
        Assert.Contains(allowed.Notes, n => n.Contains("allowed by --allow-source-server", StringComparison.Ordinal));
        Assert.Contains(allowed.Notes, n => n.Contains("is never touched", StringComparison.Ordinal));
    }

    [Fact]
    public void The_source_name_a_taken_name_a_missing_permission_too_little_space_and_a_virtual_device_each_refuse_the_drill()
    {
        // When
        var sourceName = Plan(new DrillRequest(Odd, Odd.ToUpperInvariant(), @"D:\S", @"L:\S", null, false, false, false));
        var taken = Plan(facts: new DrillTargetFacts(Test, null, null, CanCreateDatabase: false, ScratchExists: true, false) { FreeSpaceOf = _ => FreeSpace.Of(1L << 30) });
        var vdi = Plan(media: [Media[0] with { Kinds = [DeviceKind.Virtual, DeviceKind.Virtual] }, .. Media[1..]]);

        // Then
        Assert.Contains(sourceName.Refusals, r => r.Contains("is the source database's own name", StringComparison.Ordinal));
        Assert.Contains(taken.Refusals, r => r.Contains("already exists", StringComparison.Ordinal));
        Assert.Contains(taken.Refusals, r => r.Contains("GRANT CREATE ANY DATABASE", StringComparison.Ordinal));
        Assert.Contains(taken.Refusals, r => r.StartsWith(@"D:\Scratch\: the scratch files need 200 GB and the volume has 1 GB free", StringComparison.Ordinal));
        Assert.Contains(vdi.Refusals, r => r.Contains("Virtual", StringComparison.Ordinal));
        Assert.Empty(vdi.Steps);
    }

    [Fact]
    public void A_stop_time_before_the_differential_or_after_the_last_log_is_refused_and_one_within_keeps_the_logs_up_to_it()
    {
        // When
        var early = Plan(new DrillRequest(Odd, null, @"D:\S", @"L:\S", Night.AddHours(3), false, false, false));
        var late = Plan(new DrillRequest(Odd, null, @"D:\S", @"L:\S", Night.AddDays(1), false, false, false));
        var within = Plan(new DrillRequest(Odd, null, @"D:\S", @"L:\S", Night.AddHours(7).AddSeconds(30), false, false, false));

        // Then
        Assert.Contains(early.Refusals, r => r.Contains("is not after the differential", StringComparison.Ordinal));
        Assert.Contains(late.Refusals, r => r.Contains("is after the last log backup", StringComparison.Ordinal));
        Assert.Empty(within.Refusals);
        Assert.Single(within.Steps, s => s.Phase == "restore log");
    }

    [Fact]
    public void A_scratch_name_is_cut_to_sysname_length()
    {
        var name = RestoreDrillStatements.ScratchName(new string('x', 200), Now);

        Assert.Equal(128, name.Length);
        Assert.EndsWith("_drill_202611290815", name, StringComparison.Ordinal);
    }
}
