using BackupXe.Core.Drill;
using BackupXe.SqlServer.Drill;
using BackupXe.Tests.Support;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// A restore drill on a real SQL Server, only when BACKUPXE_TEST_SQL is set (skipped, visibly, otherwise), and
/// BACKUPXE_TEST_DRILL_DATABASE names a database whose latest full backup (not COPY_ONLY) msdb lists on files the server
/// can read, and BACKUPXE_TEST_SCRATCH_DIR a folder on the server for the scratch files. The test takes no backup: the
/// chain is the database's own. Source and target are the same server (AllowSourceServer), as a one-server test must.
/// </summary>
public class RestoreDrillIntegrationTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_drill_restores_the_chain_msdb_lists_into_a_scratch_database_checks_it_and_drops_it_on_a_real_server()
    {
        var factory = SqlServerIntegrationTests.Factory();
        var database = Environment.GetEnvironmentVariable("BACKUPXE_TEST_DRILL_DATABASE");
        var folder = Environment.GetEnvironmentVariable("BACKUPXE_TEST_SCRATCH_DIR");
        if (string.IsNullOrWhiteSpace(database) || string.IsNullOrWhiteSpace(folder))
        {
            Skipped.Because("BACKUPXE_TEST_DRILL_DATABASE or BACKUPXE_TEST_SCRATCH_DIR is not set: no database whose backups msdb lists, or no folder on the server for the scratch files",
                "set BACKUPXE_TEST_DRILL_DATABASE to a database with a full backup (not COPY_ONLY) in msdb on files the server can read, and BACKUPXE_TEST_SCRATCH_DIR to a folder the server can write (docs/development.md, Against a real SQL Server)");
        }

        var scratch = "BackupXe_drilltest_" + Convert.ToHexStringLower(Guid.NewGuid().ToByteArray()[..4]);
        var drill = new RestoreDrillServer(factory, factory, TimeProvider.System);
        var request = new DrillRequest(database, scratch, folder, folder, null, CheckDb: true, Keep: false, AllowSourceServer: true);
        var plan = await drill.PlanAsync(request, DateTime.Now.AddDays(-30), [], CancellationToken.None);
        foreach (var step in plan.Preflight.Concat(plan.Steps))
        {
            output.WriteLine(step.Sql);
        }

        Assert.True(plan.Refusals.Count == 0, string.Join("; ", plan.Refusals));
        Assert.DoesNotContain(plan.Steps, s => s.Sql.Contains("REPLACE", StringComparison.OrdinalIgnoreCase));

        var result = await drill.ExecuteAsync(plan, CancellationToken.None);

        output.WriteLine(string.Join("\n", result.Phases.Select(p => $"{p.Phase}: {p.Seconds:0.###} s {p.Outcome} {p.Error}")));
        Assert.True(result.Status == DrillStatus.Completed, result.Failure);
        Assert.Null(result.LeftBehind);
        Assert.True(result.RestoreSeconds > 0);
        Assert.Equal(DrillPhases.Drop, result.Phases[^1].Phase);
        await using var connection = await factory.OpenAsync(CancellationToken.None);
        await using var command = new SqlCommand("SELECT DB_ID(@name);", connection);
        command.Parameters.Add(new SqlParameter("@name", System.Data.SqlDbType.NVarChar, 128) { Value = scratch });
        Assert.Equal(DBNull.Value, await command.ExecuteScalarAsync());
    }
}
