using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Analysis;

/// <summary>
/// A file read on a thread of its own ahead of the analysis (<see cref="ReadAhead"/>), alone or each of several
/// inputs before the merge: the same events in the same order, a failure at the same place, a bounded lead, and a
/// reader that stops when the analysis does.
/// </summary>
public sealed class ReadAheadTests
{
    private static readonly DateTime Start = new(2024, 6, 1, 0, 0, 0, DateTimeKind.Unspecified);

    public static TheoryData<int> Lengths() => new(0, 1, ReadAhead.BatchEvents - 1, ReadAhead.BatchEvents, ReadAhead.BatchEvents + 1, (ReadAhead.BatchEvents * 3) + 7);

    [Theory]
    [MemberData(nameof(Lengths))]
    public void Yields_every_event_of_the_source_in_its_order(int length)
    {
        // Given a source of numbered events, across batch boundaries
        var source = new NumberedSource(length);

        // When
        var read = ReadAhead.Events(source, new SourceStatus(), CancellationToken.None).ToList();

        // Then: the same objects, in order
        Assert.Equal(Enumerable.Range(0, length), read.Select(NumberedSource.NumberOf));
        Assert.Equal(length, source.Yielded);
    }

    [Theory]
    [MemberData(nameof(Lengths))]
    public void A_source_that_throws_ends_after_every_event_it_gave_with_its_own_exception(int length)
    {
        // Given a source that fails after `length` events
        var source = new NumberedSource(length, thenThrow: new IOException("disk gone"));
        var read = new List<TraceEvent>();

        // When
        var thrown = Assert.Throws<IOException>(() =>
        {
            foreach (var traceEvent in ReadAhead.Events(source, new SourceStatus(), CancellationToken.None))
            {
                read.Add(traceEvent);
            }
        });

        // Then: the failure comes after the last event, as it would without read-ahead
        Assert.Equal("disk gone", thrown.Message);
        Assert.Equal(length, read.Count);
    }

    [Fact]
    public void The_reader_is_never_more_than_a_few_batches_ahead()
    {
        // Given an endless source and a consumer that took one event and then paused
        var source = new NumberedSource(int.MaxValue);
        using var events = ReadAhead.Events(source, new SourceStatus(), CancellationToken.None).GetEnumerator();
        Assert.True(events.MoveNext());

        // When the reader has had time to run on
        SpinWait.SpinUntil(() => source.Yielded > ReadAhead.BatchesAhead * ReadAhead.BatchEvents, TimeSpan.FromSeconds(10));
        Thread.Sleep(200);

        // Then it waits with the queue full, the batch being built and the batch the consumer holds
        Assert.InRange(source.Yielded, ReadAhead.BatchesAhead * ReadAhead.BatchEvents, (ReadAhead.BatchesAhead + 2) * ReadAhead.BatchEvents);
    }

    [Fact]
    public void A_consumer_that_stops_early_stops_the_reader_and_the_source_is_closed()
    {
        // Given an endless source read ahead
        var source = new NumberedSource(int.MaxValue);
        var events = ReadAhead.Events(source, new SourceStatus(), CancellationToken.None).GetEnumerator();
        Assert.True(events.MoveNext());

        // When the consumer leaves after one event
        events.Dispose();

        // Then the reader has stopped and disposed the source's enumerator (a file source closes its file there)
        Assert.True(source.Closed.Wait(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public void Cancellation_reaches_the_consumer_as_cancellation()
    {
        // Given an endless source and a run cancelled after its first event
        using var cancel = new CancellationTokenSource();
        var source = new NumberedSource(int.MaxValue);

        // When / Then
        Assert.ThrowsAny<OperationCanceledException>(() =>
        {
            foreach (var unused in ReadAhead.Events(source, new SourceStatus(), cancel.Token))
            {
                cancel.Cancel();
            }
        });
        Assert.True(source.Closed.Wait(TimeSpan.FromSeconds(10)));
    }

    [Theory]
    [InlineData("samples/log-zeroing-restore.log")]
    [InlineData("samples/buffer-starved-backup.xml")]
    [InlineData("Fixtures/errorlog/tf3014-backup-sql2014.log")]
    [InlineData("Fixtures/realworld/S14_sqlservercentral_2012_tf3004_restore_partial.txt")]
    public async Task An_analysis_read_ahead_gives_the_reports_and_findings_of_one_read_on_the_calling_thread(string input)
    {
        // Given one input analysed both ways
        var path = input.StartsWith("samples/", StringComparison.Ordinal)
            ? CliRun.Sample(Path.GetFileName(input))
            : Path.Combine(AppContext.BaseDirectory, input);
        var ahead = new Reports();
        var inline = new Reports();

        // When
        var aheadFindings = await new AnalysisSession([InputSources.Open(path)], new AnalysisOptions { ReadAhead = true }).RunAsync(ahead, CancellationToken.None);
        var inlineFindings = await new AnalysisSession([InputSources.Open(path)], new AnalysisOptions { ReadAhead = false }).RunAsync(inline, CancellationToken.None);

        // Then
        Assert.NotEmpty(inline.Json);
        Assert.Equal(inline.Json, ahead.Json);
        Assert.Equal(ReportJson.Serialize(inlineFindings), ReportJson.Serialize(aheadFindings));
    }

    [Fact]
    public async Task Several_inputs_each_read_ahead_give_the_reports_and_findings_of_one_read_after_the_other()
    {
        // Given a set of ERRORLOGs and client outputs of different servers and years, with an XE XML capture beside them
        string[] inputs =
        [
            CliRun.Sample("log-zeroing-restore.log"), CliRun.Sample("buffer-starved-backup.xml"),
            Fixture("errorlog", "tf3014-backup-sql2014.log"), Fixture("errorlog", "tf3213-buffers-sql2005sp2.txt"),
            Fixture("realworld", "S12_psssql_2008_restore_errorlog_default_logging.txt"), Fixture("realworld", "S14_sqlservercentral_2012_tf3004_restore_partial.txt"),
            Fixture("realworld", "S15_mssqltrek_2008r2_tf3014_backup.txt"), Fixture("realworld", "S13_sqlworkday_2012_restore_stats_output.txt"),
        ];
        var ahead = new Reports();
        var inline = new Reports();

        // When they are analysed together with each file read ahead on a thread of its own, and all on the calling thread
        var aheadFindings = await new AnalysisSession([.. inputs.Select(InputSources.Open)], new AnalysisOptions { ReadAhead = true }).RunAsync(ahead, CancellationToken.None);
        var inlineFindings = await new AnalysisSession([.. inputs.Select(InputSources.Open)], new AnalysisOptions { ReadAhead = false }).RunAsync(inline, CancellationToken.None);

        // Then the reports, their order, the inputs' counts and problems are the same
        Assert.True(inline.Json.Count > 5, $"{inline.Json.Count} operations");
        Assert.Equal(inline.Json, ahead.Json);
        Assert.Equal(ReportJson.Serialize(inlineFindings), ReportJson.Serialize(aheadFindings));
    }

    [Fact]
    public async Task In_a_merge_each_input_for_which_it_pays_is_read_on_a_thread_of_its_own()
    {
        Skipped.Unless(ReadAhead.Pays, "read-ahead needs a second core and this machine has one", "run the tests on a machine with two or more cores");

        // Given three sources of interleaved times, across batch boundaries
        NumberedSource[] sources = [new(ReadAhead.BatchEvents * 3), new((ReadAhead.BatchEvents * 2) + 1), new(5)];
        var caller = Environment.CurrentManagedThreadId;
        var merge = new TimeOrderedMerge([.. sources.Select(s => new AnalysisInput(s))], readAhead: true);

        // When they are merged
        var merged = new List<(int Number, int Source)>();
        await foreach (var (traceEvent, source) in merge.ReadEventsAsync(CancellationToken.None))
        {
            merged.Add((NumberedSource.NumberOf(traceEvent), source));
        }

        // Then each was read on a thread of its own, and the merge is in time order, ties in input order
        Assert.DoesNotContain(caller, sources.Select(s => s.ReadOnThread));
        Assert.Equal(3, sources.Select(s => s.ReadOnThread).Distinct().Count());
        var expected = sources.SelectMany((s, index) => Enumerable.Range(0, s.Length).Select(n => (Number: n, Source: index))).OrderBy(e => e.Number).ThenBy(e => e.Source);
        Assert.Equal(expected, merged);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task An_analysis_reads_ahead_only_a_source_for_which_it_pays(bool pays)
    {
        Skipped.Unless(ReadAhead.Pays, "read-ahead needs a second core and this machine has one", "run the tests on a machine with two or more cores");

        // Given one source that says whether reading ahead pays for it
        var source = new NumberedSource(ReadAhead.BatchEvents * 2) { ReadAheadPays = pays };
        var caller = Environment.CurrentManagedThreadId;

        // When it is analysed with read-ahead allowed
        await new AnalysisSession([source], new AnalysisOptions { ReadAhead = true }).RunAsync(new Reports(), CancellationToken.None);

        // Then it was read on a thread of its own only when that pays
        Assert.Equal(pays, source.ReadOnThread != caller);
    }

    [Fact]
    public void An_errorlog_is_read_ahead_and_an_xe_xml_file_is_not()
    {
        // XmlReader is nearly all of an XE XML run; an ERRORLOG's analysis is about half (docs/performance.md).
        Assert.False(ReadAhead.PaysFor(Assert.IsAssignableFrom<ISynchronousTraceEventSource>(InputSources.Open(CliRun.Sample("buffer-starved-backup.xml")))));
        Assert.True(ReadAhead.PaysFor(Assert.IsAssignableFrom<ISynchronousTraceEventSource>(InputSources.Open(CliRun.Sample("log-zeroing-restore.log")))));
    }

    [Fact]
    public async Task Job_outputs_read_ahead_give_the_reports_and_findings_of_one_read_after_the_other()
    {
        // Given two of Ola Hallengren's job outputs (a failed backup, a differential with its verify) and a client's output
        string[] inputs =
        [
            Fixture("realworld4", "V07_ola_2019_job_output_backup_3202_disk_full_after_processed.txt"),
            Fixture("realworld4", "V17_ola_2022_agent_job_output_diff_backup_12201_pages_and_verify.txt"),
            Fixture("realworld", "S13_sqlworkday_2012_restore_stats_output.txt"),
        ];
        var ahead = new Reports();
        var inline = new Reports();

        // When they are analysed together with each read ahead where that pays, and all on the calling thread
        var aheadFindings = await new AnalysisSession([.. inputs.Select(InputSources.Open)], new AnalysisOptions { ReadAhead = true }).RunAsync(ahead, CancellationToken.None);
        var inlineFindings = await new AnalysisSession([.. inputs.Select(InputSources.Open)], new AnalysisOptions { ReadAhead = false }).RunAsync(inline, CancellationToken.None);

        // Then the reports, their order, the inputs' counts and problems are the same
        Assert.True(inline.Json.Count >= 2, $"{inline.Json.Count} operations");
        Assert.Equal(inline.Json, ahead.Json);
        Assert.Equal(ReportJson.Serialize(inlineFindings), ReportJson.Serialize(aheadFindings));
    }

    [Fact]
    public void A_job_output_is_read_ahead_and_a_client_output_is_not()
    {
        // A client's output may print its server's @@VERSION after its operations: read ahead, that server would reach
        // operations a reading in step completes before the banner.
        Assert.True(ReadAhead.PaysFor(Assert.IsAssignableFrom<ISynchronousTraceEventSource>(
            InputSources.Open(Fixture("realworld4", "V17_ola_2022_agent_job_output_diff_backup_12201_pages_and_verify.txt")))));
        Assert.False(ReadAhead.PaysFor(Assert.IsAssignableFrom<ISynchronousTraceEventSource>(
            InputSources.Open(Fixture("realworld", "S13_sqlworkday_2012_restore_stats_output.txt")))));
    }

    private static string Fixture(string folder, string name) => Path.Combine(AppContext.BaseDirectory, "Fixtures", folder, name);

    private sealed class Reports : IOperationSink
    {
        public List<string> Json { get; } = [];

        public void OnOperationCompleted(OperationReport report) => Json.Add(ReportJson.Serialize(report));
    }

    /// <summary>Events numbered by their session id, counted as they are yielded, and a signal when the read ends.</summary>
    private sealed class NumberedSource(int length, Exception? thenThrow = null) : ISynchronousTraceEventSource, IReadAheadAdvice
    {
        private int _yielded;

        public int Length => length;

        public int Yielded => Volatile.Read(ref _yielded);

        public bool ReadAheadPays { get; init; } = true;

        /// <summary>The thread the read ran on.</summary>
        public int ReadOnThread { get; private set; }

        public ManualResetEventSlim Closed { get; } = new();

        public string Name => "numbered";

        public string Format => "test";

        public static int NumberOf(TraceEvent traceEvent) => traceEvent.SessionId!.Value;

        public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken)
            => throw new InvalidOperationException("read through ReadEvents");

        public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
        {
            ReadOnThread = Environment.CurrentManagedThreadId;
            try
            {
                for (var i = 0; i < length; i++)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    Interlocked.Increment(ref _yielded);
                    yield return new OtherEvent(Start.AddMilliseconds(i), i, "numbered");
                }

                if (thenThrow is not null)
                {
                    throw thenThrow;
                }
            }
            finally
            {
                Closed.Set();
            }
        }
    }
}
