using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The daemon's file transport killed at random events and started again, over and over, with its checkpoint
/// and history in SQLite files. A kill is an enumeration abandoned without disposal: no finally block runs,
/// nothing is flushed, as with SIGKILL. The event_file is scripted (sample capture rows); the analysis, the
/// checkpoint store and the history store are the real ones.
/// </summary>
public sealed class LiveRestartTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("backupxe-restart-").FullName;

    /// <summary>Three copies of the sample backup an hour apart: three operations, 21450 events.</summary>
    private static readonly IReadOnlyList<string> ThreeBackups = Enumerable.Range(0, 3)
        .SelectMany(copy => ScriptedEventFile.BufferStarvedBackup().Select(row => Shift(row, copy)))
        .ToList();

    private static readonly EventFileTailOptions Fast = new() { PollInterval = TimeSpan.FromMilliseconds(1), BatchSize = 1000 };

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    internal static string Shift(string row, int hours) => Regex.Replace(row, "timestamp=\"([^\"]+)\"", match =>
    {
        var time = DateTime.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal);
        return $"timestamp=\"{time.AddHours(hours).ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture)}\"";
    });

    private static async Task<List<OperationReport>> OneShotAsync()
    {
        var file = ScriptedEventFile.Of(ThreeBackups, 37, 50);
        return await new AnalysisSession([new RecordedEventSource("capture", "xe-xml", await AllEventsAsync(file))])
            .ReadOperationsAsync(CancellationToken.None).ToListAsync();
    }

    private static async Task<TraceEvent[]> AllEventsAsync(ScriptedEventFile file)
    {
        var parser = new BackupXe.Sources.XeXml.XeEventDataReader();
        var status = new SourceStatus();
        var rows = await file.ReadAsync(null, int.MaxValue, CancellationToken.None).ToListAsync();
        return rows.Select(r => parser.Read(r.EventData, status, "x")).OfType<TraceEvent>().ToArray();
    }

    /// <summary>
    /// One daemon life: resume from the saved checkpoint, analyse, store each operation; killed after
    /// <paramref name="killAfterEvents"/> events, or (null) run until the file is read, then stopped cleanly.
    /// Returns the reports handed on in this life and whether the history took each as new.
    /// </summary>
    private async Task<List<(OperationReport Report, HistoryWrite Write)>> LifeAsync(ScriptedEventFile file, int? killAfterEvents, TraceEvent last)
    {
        var checkpoints = new SqliteCheckpointStore(Path.Combine(_directory, "history.db"), TimeProvider.System);
        var history = new SqliteHistoryStore(Path.Combine(_directory, "history.db"), TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        var start = await checkpoints.LoadAsync("prod", CancellationToken.None);
        var tail = new EventFileTail(file, start, Fast);
        var resilient = new ResilientLiveSource("prod/BackupXe", tail, new TypeFailureClassifier(),
            new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero, MaxReconnectDelay = TimeSpan.Zero, JitterRatio = 0 });
        var source = new CheckpointedLiveSource(resilient, tail, checkpoints, "prod", TimeSpan.Zero);
        var stop = new CancellationTokenSource();
        var killed = new TaskCompletionSource();
        var session = new AnalysisSession([new LifeEnd(source, killAfterEvents ?? int.MaxValue, last, stop, killed)], new AnalysisOptions { OnIdle = source.MarkIdle });
        var life = new List<(OperationReport, HistoryWrite)>();
        var run = Task.Run(async () =>
        {
            await foreach (var report in session.ReadOperationsAsync(stop.Token))
            {
                life.Add((report, await history.SaveAsync("prod", report, CancellationToken.None)));
            }
        });

        if (await Task.WhenAny(run, killed.Task).WaitAsync(TimeSpan.FromSeconds(60)) == killed.Task)
        {
            // Killed: the run is abandoned where it stands; cancelling only stops the background network reader.
            await stop.CancelAsync();
            return life;
        }

        await run;
        return life;
    }

    [Fact]
    public async Task A_restart_without_checkpoint_stores_the_same_operations_again()
    {
        // The naive daemon: every start reads the event_file from its beginning, and counts what it analyses.
        var file = ScriptedEventFile.Of(ThreeBackups, 37, 50);
        var expected = await OneShotAsync();
        var last = (await AllEventsAsync(file))[^1];
        var handed = 0;
        for (var life = 0; life < 3; life++)
        {
            var tail = new EventFileTail(file, null, Fast);
            var source = new ResilientLiveSource("prod/BackupXe", tail, new TypeFailureClassifier(), new LiveSourceOptions { JitterRatio = 0 });
            using var stop = new CancellationTokenSource();
            handed += await new AnalysisSession([new LifeEnd(source, int.MaxValue, last, stop, new TaskCompletionSource())]).ReadOperationsAsync(stop.Token).CountAsync();
        }

        Assert.Equal(3, expected.Count);
        Assert.Equal(9, handed);
    }

    [Theory]
    [InlineData(7)]
    [InlineData(8)]
    public async Task Killed_at_random_events_and_restarted_the_daemon_stores_each_operation_once(int seed)
    {
        var file = ScriptedEventFile.Of(ThreeBackups, 37, 50);
        var expected = await OneShotAsync();
        var last = (await AllEventsAsync(file))[^1];
        var random = new Random(seed);

        var all = new List<(OperationReport Report, HistoryWrite Write)>();
        for (var kill = 0; kill < 6; kill++)
        {
            all.AddRange(await LifeAsync(file, random.Next(1, 6000), last));
        }

        all.AddRange(await LifeAsync(file, null, last));
        var history = new SqliteHistoryStore(Path.Combine(_directory, "history.db"), TimeProvider.System);
        var stored = await history.QueryAsync(new HistoryQuery(Limit: 100), CancellationToken.None);

        // Then the history holds exactly the three operations of the capture, each once, each whole
        Assert.Equal(3, stored.Count);
        Assert.Equal(expected.Select(r => r.Start).Order(), stored.Select(s => s.Report.Start).Order());
        Assert.Equal(expected.Select(r => r.Status).Order(), stored.Select(s => s.Report.Status).Order());
        Assert.Equal(expected.Select(r => r.End).Order(), stored.Select(s => s.Report.End).Order());
        Assert.Equal(3, all.Count(x => x.Write == HistoryWrite.Added));

    }

    /// <summary>
    /// Ends a life. After <paramref name="killAfter"/> events it signals <paramref name="killed"/> and never returns
    /// from the next read (the caller abandons the run); once the capture's last event went by it cancels
    /// <paramref name="stop"/>, a clean shutdown.
    /// </summary>
    private sealed class LifeEnd(ITraceEventSource inner, int killAfter, TraceEvent last, CancellationTokenSource stop, TaskCompletionSource killed) : ITraceEventSource
    {
        public string Name => inner.Name;

        public string Format => inner.Format;

        public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
        {
            var count = 0;
            await foreach (var traceEvent in inner.ReadEventsAsync(status, cancellationToken))
            {
                yield return traceEvent;
                if (++count >= killAfter)
                {
                    killed.TrySetResult();
                    await new TaskCompletionSource().Task;
                }

                if (traceEvent.Equals(last))
                {
                    await stop.CancelAsync();
                }
            }
        }
    }
}
