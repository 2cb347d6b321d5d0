using System.Diagnostics;
using System.Text;
using BackupXe.Core.Events;
using BackupXe.Sources.Errorlog;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Shapes that were quadratic: many operations in flight at once, and one message with a huge number of
/// continuation lines. Each must finish in time linear in its size. The bounds are wall-clock on a shared 2-core
/// machine, so they are loose (several times the measured time under load), yet below what the quadratic versions
/// took unloaded (89 s and more than 120 s); the tests run alone so that the suite's other tests do not skew them.
/// </summary>
[Collection(Cli.ConsoleCollection.Name)]
public class ScaleTests
{
    [Fact]
    public void A_hundred_thousand_concurrent_sessions_correlate_in_linear_time()
    {
        // Given 100,000 backups that all start, wait and finish, interleaved as a busy server would write them
        const int sessions = 100_000;
        var start = new DateTime(2024, 5, 1, 1, 0, 0, DateTimeKind.Utc);
        IEnumerable<TraceEvent> Events()
        {
            for (var s = 1; s <= sessions; s++)
            {
                yield return new ProgressTraceEvent(start, s, OperationKind.Backup, $"db{s}", "BACKUP DATABASE started");
            }

            for (var s = 1; s <= sessions; s++)
            {
                yield return new WaitEvent(start.AddSeconds(1), s, "BACKUPBUFFER", 5, 0);
            }

            for (var s = 1; s <= sessions; s++)
            {
                yield return new ProgressTraceEvent(start.AddSeconds(2), s, OperationKind.Backup, $"db{s}", "BACKUP DATABASE finished");
            }
        }

        var clock = Stopwatch.StartNew();

        // When
        var run = PipelineRun.Of(Events());

        // Then (the list-scanning correlator took 89 s for this)
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), $"took {clock.Elapsed.TotalSeconds:0.0} s");
        Assert.Equal(sessions, run.Reports.Count);
        Assert.All(run.Reports, r => Assert.Equal(Core.Reporting.OperationStatus.Completed, r.Status));
        Assert.All(run.Reports, r => Assert.Equal(5, Assert.Single(r.Waits).TotalMs));
    }

    [Fact]
    public async Task Eighty_thousand_continuation_lines_are_read_in_linear_time_and_kept_bounded()
    {
        // Given one message followed by 80,000 lines without a timestamp (string concatenation made this > 120 s)
        var text = new StringBuilder("2024-05-02 06:15:04.41 spid58      Backup(SalesDB): a message with continuation lines\n");
        for (var i = 0; i < 80_000; i++)
        {
            text.Append("continuation line ").Append(i).Append(" of a very long message written by a broken tool\n");
        }

        text.Append("2024-05-02 06:15:05.41 spid58      Backup(SalesDB): the next message\n");
        using var input = TempInput.WithText(text.ToString(), new UTF8Encoding(false), "continuations.log");
        var status = new SourceStatus();
        var clock = Stopwatch.StartNew();

        // When
        var events = new List<TraceEvent>();
        await foreach (var e in new ErrorlogEventSource(input.Path).ReadEventsAsync(status, CancellationToken.None))
        {
            events.Add(e);
        }

        // Then
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"took {clock.Elapsed.TotalSeconds:0.0} s");
        Assert.Equal(2, events.Count);
        Assert.True(((ProgressTraceEvent)events[0]).Message.Length <= ErrorlogEventSource.MaxMessageChars);
        var problem = Assert.Single(status.Problems);
        Assert.Equal("line 1", problem.Location);
        Assert.Contains("continuation lines dropped", problem.Message);
    }

    [Fact]
    public async Task Alternating_text_and_cdata_in_one_field_is_read_in_linear_time_and_kept_bounded()
    {
        // Given a trace_message of 200,000 alternating text and CDATA nodes (1.4 MB), which concatenation made quadratic
        var message = new StringBuilder();
        for (var i = 0; i < 100_000; i++)
        {
            message.Append("abc<![CDATA[def]]>");
        }

        var xml = $"""<events><event name="backup_restore_progress_trace" package="sqlserver" timestamp="2024-05-01T01:30:00Z"><data name="trace_message"><value>{message}</value></data><action name="session_id" package="sqlserver"><value>61</value></action></event></events>""";
        using var input = TempInput.WithText(xml, new UTF8Encoding(false), "cdata.xml");
        var status = new SourceStatus();
        var clock = Stopwatch.StartNew();

        // When
        var events = new List<TraceEvent>();
        await foreach (var e in new BackupXe.Sources.XeXml.XeXmlEventSource(input.Path).ReadEventsAsync(status, CancellationToken.None))
        {
            events.Add(e);
        }

        // Then
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"took {clock.Elapsed.TotalSeconds:0.0} s");
        var progress = Assert.IsType<ProgressTraceEvent>(Assert.Single(events), exactMatch: false);
        Assert.Equal(65_536, progress.Message.Length);
        Assert.StartsWith("abcdefabcdef", progress.Message, StringComparison.Ordinal);
        Assert.Contains("longer than 65536 characters", Assert.Single(status.Problems).Message);
    }

    [Fact]
    public void Commands_of_client_output_are_released_as_the_next_one_begins()
    {
        // Given three restores as sqlcmd prints them: no clock, so no grace period can ever pass
        IEnumerable<TraceEvent> Restore(string database) =>
        [
            new ProgressTraceEvent(TraceEvent.NoClock, null, OperationKind.Restore, database, $"Processed 328 pages for database '{database}', file '{database}' on file 1."),
            new ProgressTraceEvent(TraceEvent.NoClock, null, OperationKind.Restore, database, "RESTORE DATABASE successfully processed 330 pages in 0.045 seconds (57.291 MB/sec)."),
        ];

        // When the third has begun, before the end of the input
        var run = PipelineRun.Of([.. Restore("A"), .. Restore("B"), Restore("C").First()], flush: false);

        // Then the two ended ones are out already: memory holds the command in flight, not every command so far
        Assert.Equal(["A", "B"], run.Reports.Select(r => r.Database));
    }

    [Fact]
    public async Task Ola_job_output_is_analysed_in_time_linear_in_its_commands()
    {
        // Given DatabaseBackup's output for 10,000 and 40,000 commands over 50 databases (40,000 took 53 s when the
        // ended commands were all held and searched on every event: 28 times the 10,000's time for 4 times the commands)
        static async Task<(TimeSpan Took, int Operations)> Analyse(int commands)
        {
            var output = new OlaJobOutput();
            var start = new DateTime(2024, 5, 1, 1, 0, 0);
            for (var i = 0; i < commands; i++)
            {
                output.Command(start.AddSeconds(2 * i), TimeSpan.FromSeconds(1),
                    $"BACKUP DATABASE [DB{i % 50}] TO DISK = N'X:\\b\\DB{i}.bak' WITH CHECKSUM", pages: 1002, engineSeconds: 0.5);
            }

            var bytes = Encoding.UTF8.GetBytes(output.ToString());
            var clock = Stopwatch.StartNew();
            var run = await PipelineRun.OfAsync(new BackupXe.Sources.OlaOutput.OlaOutputEventSource("ola.txt", () => new MemoryStream(bytes), null));
            return (clock.Elapsed, run.Reports.Count);
        }

        await Analyse(10_000);

        // When
        var small = await Analyse(10_000);
        var large = await Analyse(40_000);

        // Then every command is one operation, and 4 times the commands take about 4 times as long
        Assert.Equal(10_000, small.Operations);
        Assert.Equal(40_000, large.Operations);
        var ratio = large.Took / small.Took;
        Assert.True(ratio < 10, $"40,000 commands took {ratio:0.0} times as long as 10,000 ({large.Took.TotalSeconds:0.0} s)");
    }
}
