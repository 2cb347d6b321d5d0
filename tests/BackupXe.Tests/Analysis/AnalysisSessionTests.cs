using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Analysis;

public sealed class AnalysisSessionTests
{
    private static readonly XeScript TwoBackups = new XeScript()
        .CompleteBackup(0, 10, 51, "Sales", @"D:\b\sales.bak")
        .CompleteBackup(100, 10, 52, "Stock", @"D:\b\stock.bak");

    public sealed class ReadOperationsAsync
    {
        [Fact]
        public async Task Hands_on_each_operation_before_the_events_after_it_are_read()
        {
            // Given a source that notes how far it has been read
            var source = new WatchedSource(TwoBackups.Events);
            var session = new AnalysisSession([source]);

            // When
            var readWhenYielded = new List<int>();
            await foreach (var report in session.ReadOperationsAsync(CancellationToken.None))
            {
                readWhenYielded.Add(source.Read);
            }

            // Then the first backup came out long before the end of the input; the second at the end
            Assert.Equal(2, readWhenYielded.Count);
            Assert.True(readWhenYielded[0] < TwoBackups.Events.Count, $"first report after {readWhenYielded[0]} events");
            Assert.Equal(TwoBackups.Events.Count, readWhenYielded[1]);
        }

        [Fact]
        public async Task Reads_its_inputs_once()
        {
            // Given a session already run
            var session = new AnalysisSession([new ListSource("a", TwoBackups.Events)]);
            await foreach (var unused in session.ReadOperationsAsync(CancellationToken.None))
            {
            }

            // When / Then
            await Assert.ThrowsAsync<InvalidOperationException>(async () =>
            {
                await foreach (var unused in session.ReadOperationsAsync(CancellationToken.None))
                {
                }
            });
        }
    }

    public sealed class RunAsync
    {
        [Fact]
        public async Task Sends_every_operation_to_the_sink_and_returns_the_findings()
        {
            // Given
            var sink = new ReportList();
            var session = new AnalysisSession([new ListSource("capture.xml", TwoBackups.Events)]);

            // When
            var findings = await session.RunAsync(sink, CancellationToken.None);

            // Then
            Assert.Equal(["Sales", "Stock"], sink.Reports.Select(r => r.Database));
            var input = Assert.Single(findings.Inputs);
            Assert.Equal(("capture.xml", (long)TwoBackups.Events.Count), (input.Path, input.Events));
            Assert.False(findings.Partial);
            Assert.False(findings.NothingUsable);
        }

        [Fact]
        public async Task A_damaged_input_beside_a_good_one_makes_the_run_partial_not_empty()
        {
            // Given a good input and one that fails half way
            var good = new ListSource("good.xml", TwoBackups.Events);
            var bad = new ListSource("bad.xml", TwoBackups.Events.Take(3).ToList(), new IOException("disk gone"));
            var sink = new ReportList();

            // When
            var findings = await new AnalysisSession([good, bad]).RunAsync(sink, CancellationToken.None);

            // Then
            Assert.True(findings.Partial);
            Assert.False(findings.NothingUsable);
            Assert.Contains("disk gone", Assert.Single(findings.Inputs[1].Problems).Message);
            Assert.Contains(sink.Reports, r => r.Database == "Stock");
        }

        [Fact]
        public async Task Calls_the_progress_view_only_after_trace_messages()
        {
            // Given a wait between two trace messages
            var events = new XeScript().Backup(0, 51, "Sales", "BACKUP DATABASE started").Wait(1, 51, "BACKUPIO", 5).Backup(2, 51, "Sales", "Copying data files").Events;
            var snapshots = new List<int>();
            var session = new AnalysisSession([new ListSource("a", events)], new AnalysisOptions { OnProgress = running => snapshots.Add(running.Count) });

            // When
            await session.RunAsync(new ReportList(), CancellationToken.None);

            // Then
            Assert.Equal([1, 1], snapshots);
        }
    }

    public sealed class OneSynchronousInput
    {
        [Fact]
        public async Task Gives_the_reports_and_findings_of_the_merged_path_without_awaiting_the_source()
        {
            // Given the same events as an async source and as a synchronous one whose async side is never used
            var merged = new ReportList();
            var direct = new ReportList();
            var expected = await new AnalysisSession([new ListSource("capture.xml", TwoBackups.Events)]).RunAsync(merged, CancellationToken.None);

            // When
            var findings = await new AnalysisSession([new SynchronousSource("capture.xml", TwoBackups.Events)]).RunAsync(direct, CancellationToken.None);

            // Then
            Assert.Equal(merged.Reports.Select(r => ReportJson.Serialize(r)), direct.Reports.Select(r => ReportJson.Serialize(r)));
            Assert.Equal(ReportJson.Serialize(expected), ReportJson.Serialize(findings));
        }

        [Fact]
        public async Task A_source_that_throws_is_reported_and_what_it_gave_is_still_analysed()
        {
            // Given a synchronous input that fails after both backups
            var source = new SynchronousSource("bad.xml", TwoBackups.Events, new IOException("disk gone"));
            var sink = new ReportList();

            // When
            var findings = await new AnalysisSession([source]).RunAsync(sink, CancellationToken.None);

            // Then
            Assert.Equal(["Sales", "Stock"], sink.Reports.Select(r => r.Database));
            Assert.True(findings.Partial);
            var problem = Assert.Single(Assert.Single(findings.Inputs).Problems);
            Assert.Equal(("source", "reading stopped: disk gone"), (problem.Location, problem.Message));
        }
    }

    private sealed class SynchronousSource(string name, IReadOnlyList<TraceEvent> events, Exception? thenThrow = null) : ISynchronousTraceEventSource
    {
        public string Name => name;

        public string Format => "test";

        public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken)
            => throw new InvalidOperationException("a single synchronous input is read through ReadEvents");

        public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
        {
            foreach (var traceEvent in events)
            {
                status.Events++;
                yield return traceEvent;
            }

            if (thenThrow is not null)
            {
                throw thenThrow;
            }
        }
    }

    private sealed class ReportList : IOperationSink
    {
        public List<OperationReport> Reports { get; } = [];

        public void OnOperationCompleted(OperationReport report) => Reports.Add(report);
    }

    private sealed class WatchedSource(IReadOnlyList<TraceEvent> events) : ITraceEventSource
    {
        public int Read { get; private set; }

        public string Name => "watched";

        public string Format => "test";

        public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
        {
            foreach (var traceEvent in events)
            {
                await Task.Yield();
                Read++;
                status.Events++;
                yield return traceEvent;
            }
        }
    }
}
