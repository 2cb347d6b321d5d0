using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>The genuine event_file fixture against the ground truth of docs/xel-format.md.</summary>
public sealed class XelFixtureTests
{
    [Fact]
    public async Task Reads_all_149_events_record_by_record_with_no_problem()
    {
        // Given / When
        var run = await XelRun.ReadAsync(Fixture.TestXel);

        // Then
        Assert.Empty(run.Status.Problems);
        Assert.False(run.Status.Unusable);
        Assert.Equal(149, run.Events.Count);
        Assert.Equal(149, run.Status.Events);
        Assert.Equal("rpc_completed", run.Events[0].Name);
        Assert.Equal("sql_batch_completed", run.Events[^1].Name);
        Assert.All(run.Events, e => Assert.Equal("sqlserver", e.Package));
    }

    [Fact]
    public async Task Counts_each_event_as_the_ground_truth_does()
    {
        // Given / When
        var run = await XelRun.ReadAsync(Fixture.TestXel);

        // Then
        var counts = run.Events.GroupBy(e => e.Name).ToDictionary(g => g.Key, g => g.Count());
        Assert.Equal(
            new Dictionary<string, int>
            {
                ["existing_connection"] = 120,
                ["rpc_completed"] = 11,
                ["sql_batch_starting"] = 5,
                ["sql_batch_completed"] = 5,
                ["login"] = 4,
                ["logout"] = 4,
            },
            counts);
    }

    [Fact]
    public async Task Event_sequence_runs_from_133_to_281_without_a_gap()
    {
        // Given / When
        var run = await XelRun.ReadAsync(Fixture.TestXel);

        // Then: no record missed or read twice (the file holds two of them out of order, as it holds their timestamps)
        var sequence = run.Events.Select(e => (ulong)e.Action("event_sequence").Value!).ToList();
        Assert.Equal(Enumerable.Range(133, 149).Select(i => (ulong)i), sequence.Order());
        Assert.Equal(133UL, sequence[0]);
        Assert.Equal(281UL, sequence[^1]);
    }

    [Fact]
    public async Task Decodes_the_first_events_fields_and_actions_to_their_types()
    {
        // Given / When
        var first = (await XelRun.ReadAsync(Fixture.TestXel)).Events[0];

        // Then
        Assert.Equal(new DateTime(2017, 10, 17, 20, 37, 3, DateTimeKind.Utc).AddTicks(1_482_054), first.Timestamp);
        Assert.Equal(DateTimeKind.Utc, first.Timestamp.Kind);
        Assert.Equal(0UL, first.Field("cpu_time").Value);
        Assert.Equal(56UL, first.Field("duration").Value);
        Assert.Equal(0UL, first.Field("physical_reads").Value);
        Assert.Equal(0UL, first.Field("logical_reads").Value);
        Assert.Equal(0UL, first.Field("writes").Value);
        Assert.Equal(0UL, first.Field("result").Value);
        Assert.Equal("OK", first.Field("result").Text);
        Assert.Equal(0UL, first.Field("row_count").Value);
        Assert.Equal(0UL, first.Field("connection_reset_option").Value);
        Assert.Equal("None", first.Field("connection_reset_option").Text);
        Assert.Equal("sp_prepare", first.Field("object_name").Value);
        Assert.StartsWith("declare @p1 int\r\n", (string)first.Field("statement").Value!);

        Assert.Equal(182UL, first.Action("session_id").Value);
        Assert.Equal(1UL, first.Action("database_id").Value);
        Assert.Equal(4956UL, first.Action("client_pid").Value);
        Assert.Equal("SQL Server Data Collector - Controller", first.Action("client_app_name").Value);
        Assert.Equal(@"NTDEV\DAVIDSHI-SRV$", first.Action("nt_username").Value);
        Assert.Equal(@"NTDEV\DAVIDSHI-SRV$", first.Action("server_principal_name").Value);
        Assert.Equal(0UL, first.Action("query_hash").Value);
        Assert.Equal(133UL, first.Action("event_sequence").Value);
        Assert.Equal("sqlserver", first.Action("session_id").Package);
        Assert.Equal("package0", first.Action("event_sequence").Package);
    }

    [Fact]
    public async Task Keeps_the_one_timestamp_inversion_and_ends_at_the_last_event()
    {
        // Given / When
        var events = (await XelRun.ReadAsync(Fixture.TestXel)).Events;

        // Then
        Assert.Equal(new DateTime(2017, 10, 17, 20, 37, 5, DateTimeKind.Utc).AddTicks(735_422), events[^1].Timestamp);
        Assert.Equal(1, events.Zip(events.Skip(1)).Count(pair => pair.Second.Timestamp < pair.First.Timestamp));
    }

    [Fact]
    public async Task Optional_actions_are_absent_where_the_file_omits_them()
    {
        // Given / When
        var events = (await XelRun.ReadAsync(Fixture.TestXel)).Events;

        // Then
        Assert.Equal(14, events.Count(e => e.Actions.Any(a => a.Name == "attach_activity_id_xfer")));
        Assert.Equal(3, events.Count(e => e.Actions.All(a => a.Name != "server_principal_name")));
        Assert.All(
            events.SelectMany(e => e.Actions).Where(a => a.Name == "attach_activity_id_xfer"),
            a => Assert.IsType<BackupXe.Sources.XeEvents.XeActivityId>(a.Value));
    }

    [Fact]
    public void Catalogue_holds_the_packages_the_clock_and_the_referenced_objects()
    {
        // Given / When
        var catalogue = XelCatalogueReader.Read(File.ReadAllBytes(Fixture.TestXel));

        // Then
        Assert.Equal(["package0", "sqlserver"], catalogue.Packages.Select(p => p.Name));
        Assert.Equal(Guid.Parse("60AA9FBF-673B-4553-B7ED-71DCA7F5E972"), catalogue.Packages[0].Guid);
        Assert.Equal(Guid.Parse("655FD93F-3364-40D5-B2BA-330F7FFB6491"), catalogue.Packages[1].Guid);
        Assert.Equal(0x80000000u, catalogue.Packages[0].Id);
        Assert.Equal(0x80000002u, catalogue.Packages[1].Id);
        var rpc = catalogue.Events[0x00007402];
        Assert.Equal("rpc_completed", rpc.Name);
        var uuid = rpc.ReadOnlyColumns.Single(c => c.Name == "UUID");
        Assert.Equal(Guid.Parse("F1574C94-2B93-4716-A3C1-90F1E1FE2DB8"), new Guid(uuid.Value));
        Assert.Equal(41, rpc.DataColumns.Single(c => c.Name == "row_count").PayloadOffset);
        Assert.Equal(new DateTime(2017, 10, 17, 15, 45, 30, DateTimeKind.Utc).AddTicks(2_696_704), catalogue.Clock.Base);
        Assert.Equal(10_000_000, catalogue.Clock.TicksPerSecond);
        Assert.Equal(Guid.Parse("7031ecb4-a832-4484-8513-5ad14a08c976"), catalogue.SessionGuid);
        Assert.Equal(7, catalogue.Events.Count);
        Assert.Contains(catalogue.Events.Values, e => e.Name == "attention");
        Assert.Equal(10, catalogue.Actions.Count);
        Assert.Equal(4, catalogue.Maps.Count);
        Assert.Equal(14, catalogue.Types.Count);
        Assert.Equal(26, catalogue.Maps.Values.Single(m => m.Name == "keyword_map").Entries.Count);
        Assert.Equal(1, catalogue.Maps[0x30007002].KeySize);
    }

    [Fact]
    public async Task Analysis_sees_149_events_none_of_them_backup_events()
    {
        // Given / When
        var run = await SourceRun.ReadAsync(new XelFileSource(Fixture.TestXel));

        // Then
        Assert.Empty(run.Status.Problems);
        Assert.Equal(149, run.Status.Events);
        Assert.Equal(149, run.Events.Count);
        Assert.All(run.Events, e => Assert.IsType<OtherEvent>(e));
        Assert.Equal(182, run.Events[0].SessionId);
    }
}
