using BackupXe.Cli.Rendering;
using BackupXe.Core.Tuning;
using BackupXe.Tests.Tuning;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// tune's JSON from a whole tune on the simulated server (the published buffer-count table, seeded noise) with restore
/// trials on a SAN-like restore model: the output a DBA would get, snapshotted byte for byte.
/// </summary>
public sealed class TuneReportWriterTests
{
    [Fact]
    public async Task A_simulated_tune_with_restore_trials_writes_the_snapshotted_json()
    {
        // Given a tune of the buffer-count table with restore trials
        var (model, directories) = Shapes.Get("buffer-count-table");
        var request = TunerTests.Request(directories, 1024, 120) with { Restore = new RestoreTuneRequest([@"Z:\Sales.bak"], @"X:\Scratch") };
        var host = new SimulatedRestoreHost(new SimulatedServer(model, directories, seed: 2)) { Model = RestoreModel.San };

        // When it runs and its result is written as JSON
        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        // Then the JSON is the snapshot's
        await Snapshot.MatchAsync("tune-simulated.json.txt", TuneReportWriter.Result(result, "json"));
    }
}
