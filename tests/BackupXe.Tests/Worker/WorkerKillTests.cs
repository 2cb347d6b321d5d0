using System.Diagnostics;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The real worker, started as <c>dotnet BackupXe.Worker.dll</c> in its own process with one live instance on the
/// <c>file</c> transport, pointed at the TDS double in this process. The double's event_file grows as a server's
/// does while a backup runs (the sample capture's real event_data rows, three backups an hour apart, emitted at
/// 4000 rows a second, whether or not the worker is alive), and the worker is killed with SIGKILL at random points:
/// at a random moment, or as soon as inotify reports a write to the history file's WAL (a history row or a checkpoint
/// being written), then started again. At the end the SQLite history must hold exactly the operations of a clean
/// one-shot analysis of the same rows, field for field, wait counts (the events) included.
/// </summary>
[Trait("Fault", "sigkill")]
// Its run and end limits are wall-clock: alone, after the tests that run side by side, so that their load cannot fail it.
[Collection(Cli.ConsoleCollection.Name)]
public sealed class WorkerKillTests(ITestOutputHelper output) : IDisposable
{
    private const string Instance = "prod";
    private const int BatchSize = 250;
    private const int RowsPerSecond = 4000;
    private const int Kills = 4;
    private const int Operations = 3;

    /// <summary>
    /// Three copies of the sample backup an hour apart, then the first rows of a fourth: the fourth's start is what
    /// completes the third (as on a server where backups follow each other), and it never completes itself.
    /// </summary>
    private static readonly IReadOnlyList<string> Rows =
    [
        .. Enumerable.Range(0, Operations).SelectMany(copy => ScriptedEventFile.BufferStarvedBackup().Select(row => LiveRestartTests.Shift(row, copy))),
        .. ScriptedEventFile.BufferStarvedBackup().Take(100).Select(row => LiveRestartTests.Shift(row, Operations)),
    ];

    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-sigkill-").FullName;

    private string HistoryPath => Path.Combine(_folder, "backupxe-history.db");

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Theory]
    [InlineData(11)]
    [InlineData(12)]
    public async Task Killed_with_SIGKILL_at_random_points_and_restarted_the_worker_stores_each_operation_once(int seed)
    {
        // Given the clean analysis of the rows the server will emit
        var expected = await ExpectedAsync();

        // When the worker is killed four times and then runs to the end
        var run = await RunAsync(seed, naiveCheckpoint: false);

        // Then the history holds those operations, each once and whole: same start, end, bytes, phases and wait counts
        Assert.True(expected.SequenceEqual(run.Stored), Describe(run, expected));
        Assert.Equal(expected.Sum(WaitEvents), run.Stored.Sum(WaitEvents));
        Assert.Equal(Kills, run.KillPoints.Count);
        Assert.StartsWith("on history write", run.KillPoints[0], StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_worker_that_resumes_after_the_last_row_it_fetched_loses_or_repeats_under_the_same_kills()
    {
        // Given the same rows, seed and kill schedule, but before every restart the checkpoint is replaced by the position
        // a naive reader keeps: the last row fetched from the server, whether or not its operation was stored
        var expected = await ExpectedAsync();

        // When
        var run = await RunAsync(11, naiveCheckpoint: true);

        // Then the history is wrong: an operation split by a kill is stored short, twice, or not at all
        Assert.False(expected.SequenceEqual(run.Stored), Describe(run, expected));
    }

    /// <summary>One-shot analysis of every row, as <c>analyze</c> would see the capture: the completed operations as report JSON.</summary>
    private static async Task<List<string>> ExpectedAsync()
    {
        var parser = new BackupXe.Sources.XeXml.XeEventDataReader();
        var status = new SourceStatus();
        var events = Rows.Select(row => parser.Read(row, status, "x")).OfType<TraceEvent>().ToArray();
        var reports = await new AnalysisSession([new RecordedEventSource("capture", "xe-xml", events)])
            .ReadOperationsAsync(CancellationToken.None).ToListAsync();
        Assert.Equal(Operations + 1, reports.Count);
        // The worker's live source names its server from the double's login response (major 15, build 2000).
        var server = ServerVersion.FromBuild("15.0.2000", "the connected server's login response");
        return reports.OrderBy(r => r.Start).Take(Operations).Select(r => ReportJson.Serialize(r with { Server = server })).ToList();
    }

    private static long WaitEvents(string reportJson) => ReportJson.Deserialize<OperationReport>(reportJson).Waits.Sum(w => w.Count);

    private static string Describe(KillRun run, IReadOnlyList<string> expected) =>
        $"expected {expected.Count} operations, stored {run.Stored.Count}; kills: {string.Join("; ", run.KillPoints)}\n"
        + string.Join("\n", run.Stored.Select(json => json.Length > 300 ? json[..300] : json))
        + $"\nlast worker output:\n{run.LastOutput}";

    private async Task<KillRun> RunAsync(int seed, bool naiveCheckpoint)
    {
        var file = ScriptedEventFile.Of(Rows, 37, 50);
        file.WrittenSoFar(0);
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(file));
        var environment = new Dictionary<string, string>
        {
            ["BackupXe__Instances__0__Name"] = Instance,
            ["BackupXe__Instances__0__Server"] = server.Server,
            ["BackupXe__Instances__0__UserName"] = TdsClient.User,
            ["BackupXe__Instances__0__Password"] = TdsClient.Password,
            ["BackupXe__Instances__0__Encrypt"] = "false", // test-only: the double speaks no TLS
            ["BackupXe__Instances__0__PollIntervalSeconds"] = "0.02",
            ["BackupXe__Instances__0__BatchSize"] = BatchSize.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["BackupXe__Instances__0__CheckpointIntervalSeconds"] = "0",
            ["BackupXe__RetryDelaySeconds"] = "0.2",
            ["Serilog__MinimumLevel__Default"] = "Information",
            ["Serilog__WriteTo__0__Name"] = "Console",
        };

        var random = new Random(seed);
        var killPoints = new List<string>();
        using var emitting = new CancellationTokenSource();
        Task? emitter = null;
        var deadline = Stopwatch.StartNew();
        var lastOutput = string.Empty;
        try
        {
            for (var life = 0; life <= Kills; life++)
            {
                var readsBefore = file.Reads;
                using var worker = WorkerProcess.Start(_folder, environment);
                emitter ??= EmitAsync(file, emitting.Token);
                await WaitUntilAsync(() => file.Reads > readsBefore || worker.HasExited, TimeSpan.FromSeconds(30));
                Assert.False(worker.HasExited, $"the worker exited on its own:\n{worker.Output}");
                if (life == Kills)
                {
                    await WaitForTheEndAsync(file);
                }
                else if (life == 0)
                {
                    // Every schedule has one kill on a write: the first life's first history write is the first backup's row.
                    killPoints.Add(await KillOnHistoryWriteAsync(worker, 1, TimeSpan.FromSeconds(20)));
                }
                else if (random.Next(2) == 0)
                {
                    var delay = random.Next(100, 1500);
                    await Task.Delay(delay);
                    worker.Kill();
                    killPoints.Add($"{delay} ms after the first read");
                }
                else
                {
                    killPoints.Add(await KillOnHistoryWriteAsync(worker, random.Next(1, 3), TimeSpan.FromSeconds(4)));
                }

                worker.Kill();
                await worker.WaitForExitAsync(TimeSpan.FromSeconds(10));
                lastOutput = worker.Output;
                if (naiveCheckpoint && life < Kills && file.LastRowReturned is { } fetched)
                {
                    await new SqliteCheckpointStore(HistoryPath, TimeProvider.System)
                        .SaveAsync(Instance, new EventFileCheckpoint(fetched.Position, null, 0, null), CancellationToken.None);
                }
            }
        }
        finally
        {
            await emitting.CancelAsync();
            if (emitter is not null)
            {
                await emitter;
            }
        }

        Assert.True(deadline.Elapsed < TimeSpan.FromSeconds(50), $"one run took {deadline.Elapsed.TotalSeconds:F0} s");
        var run = new KillRun(await StoredAsync(), killPoints, lastOutput);
        output.WriteLine($"seed {seed}{(naiveCheckpoint ? ", naive checkpoint" : string.Empty)}, {deadline.Elapsed.TotalSeconds:F1} s, {file.Reads} reads, {file.RowsReturned} rows served: "
            + $"{run.Stored.Count} stored; kills: {string.Join("; ", killPoints)}");
        return run;
    }

    /// <summary>The server writing: rows become visible at a steady rate from the first start on, worker alive or not.</summary>
    private static async Task EmitAsync(ScriptedEventFile file, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        while (!cancellationToken.IsCancellationRequested)
        {
            file.WrittenSoFar((int)Math.Min(Rows.Count, clock.Elapsed.TotalSeconds * RowsPerSecond));
            try
            {
                await Task.Delay(20, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    /// <summary>
    /// Kills the worker from inotify's thread on the <paramref name="nth"/> write to the history's WAL: a history row or
    /// a checkpoint being committed. The kill lands during that transaction's writes or within milliseconds after.
    /// </summary>
    private async Task<string> KillOnHistoryWriteAsync(WorkerProcess worker, int nth, TimeSpan patience)
    {
        var remaining = nth;
        var hit = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var watcher = new FileSystemWatcher(_folder, "backupxe-history.db-wal") { NotifyFilter = NotifyFilters.LastWrite | NotifyFilters.Size };
        watcher.Changed += (_, _) =>
        {
            if (Interlocked.Decrement(ref remaining) == 0)
            {
                worker.Kill();
                hit.TrySetResult();
            }
        };
        watcher.EnableRaisingEvents = true;
        if (await Task.WhenAny(hit.Task, Task.Delay(patience)) == hit.Task)
        {
            return $"on history write {nth}";
        }

        worker.Kill();
        return $"{patience.TotalSeconds} s after the first read (history write {nth} did not come)";
    }

    /// <summary>The last life: every row emitted and read, the reader polling at the end, the operations it completes stored.</summary>
    private async Task WaitForTheEndAsync(ScriptedEventFile file)
    {
        await WaitUntilAsync(() => file.WrittenSoFarRows >= Rows.Count, TimeSpan.FromSeconds(30));
        var reads = file.Reads;
        await WaitUntilAsync(() => file.Reads >= reads + 5 && file.LastReadRows < BatchSize, TimeSpan.FromSeconds(20));
        var clock = Stopwatch.StartNew();
        while ((await StoredAsync()).Count < Operations && clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            await Task.Delay(50);
        }

        // Room for a late (wrong) extra row to land before the count is taken.
        await Task.Delay(300);
    }

    private async Task<List<string>> StoredAsync()
    {
        if (!File.Exists(HistoryPath))
        {
            return [];
        }

        var connectionString = new SqliteConnectionStringBuilder { DataSource = HistoryPath, Mode = SqliteOpenMode.ReadOnly, Pooling = false }.ToString();
        await using var connection = new SqliteConnection(connectionString);
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT report_json FROM operations ORDER BY start_time, id;";
        var stored = new List<string>();
        try
        {
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                stored.Add(reader.GetString(0));
            }
        }
        catch (SqliteException exception) when (exception.SqliteErrorCode == 1)
        {
            // No operations table yet: the worker has not got that far.
        }

        return stored;
    }

    private static async Task WaitUntilAsync(Func<bool> condition, TimeSpan timeout, bool throwOnTimeout = true)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > timeout)
            {
                if (throwOnTimeout)
                {
                    throw new TimeoutException($"condition not met within {timeout.TotalSeconds} s");
                }

                return;
            }

            await Task.Delay(10);
        }
    }

    private sealed record KillRun(List<string> Stored, List<string> KillPoints, string LastOutput);
}
