using System.Text;
using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;
using BackupXe.Tests.Cli;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// An XE value of tens of MB written as CDATA. XmlReader builds a CDATA section whole in its buffer before handing
/// any of it out (a 90 MB trace_message took 396 MiB, docs/performance.md), so such a section reaches it as the same
/// value in escaped character data, which it hands out in chunks. The value is cut at 64 K characters like a text
/// value, the cut is located, and the events after it are read. The reading thread's allocation is measured: a whole
/// section would allocate at least twice its size.
/// </summary>
public class HugeCDataTests
{
    private const int ValueChars = 20 << 20;

    private const long AllocationBound = 8L << 20;

    [Theory]
    [InlineData("utf-8")]
    [InlineData("utf-16")]
    public void A_huge_CDATA_value_is_cut_and_located_and_the_events_after_it_are_read_in_bounded_memory(string encoding)
    {
        // Given: the XE sample, its second trace_message followed by 20 M characters with markup characters among them
        var sample = File.ReadAllText(CliRun.Sample("buffer-starved-backup.xml"));
        const string Value = "<![CDATA[Opening the database with S lock]]>";
        var huge = "Opening the database with S lock " + new string('x', ValueChars) + " <&> ]] ] >";
        var xml = sample.Replace(Value, "<![CDATA[" + huge + "]]>", StringComparison.Ordinal);
        Assert.NotEqual(sample, xml);
        var eventLine = xml.AsSpan(0, xml.LastIndexOf("<event ", xml.IndexOf(huge, StringComparison.Ordinal), StringComparison.Ordinal)).Count('\n') + 1;
        var bytes = encoding == "utf-8" ? Encoding.UTF8.GetBytes(xml) : [.. Encoding.Unicode.GetPreamble(), .. Encoding.Unicode.GetBytes(xml)];
        var expected = Events(Encoding.UTF8.GetBytes(sample), out _, out _);

        // When
        var events = Events(bytes, out var status, out var allocated);

        // Then: every event of the sample, the long one cut, the cut at its line
        Assert.Equal(expected.Count, events.Count);
        var problem = Assert.Single(status.Problems);
        Assert.Equal($"line {eventLine}", problem.Location);
        Assert.Contains("longer than 65536 characters", problem.Message, StringComparison.Ordinal);
        Assert.Contains(events, e => e is ProgressTraceEvent { Message: var message }
            && message.Length <= 65_536 && message.StartsWith("Opening the database with S lock xxx", StringComparison.Ordinal));
        Assert.True(allocated < AllocationBound, $"{allocated >> 20} MB allocated");
    }

    [Fact]
    public void A_CDATA_value_up_to_the_bound_and_one_in_a_comment_are_read_as_they_were()
    {
        // Given: a value of exactly the kept length with markup characters, and a CDATA opener inside a comment
        var sample = File.ReadAllText(CliRun.Sample("buffer-starved-backup.xml"));
        var value = "Opening <the> & database" + new string('y', 65_536 - 24);
        var xml = sample.Replace("<![CDATA[Opening the database with S lock]]>", "<!-- <![CDATA[ --><![CDATA[" + value + "]]>", StringComparison.Ordinal);

        // When
        var events = Events(Encoding.UTF8.GetBytes(xml), out var status, out _);

        // Then
        Assert.Empty(status.Problems);
        Assert.Contains(events, e => e is ProgressTraceEvent { Message: var message } && message == value);
    }

    private static List<TraceEvent> Events(byte[] bytes, out SourceStatus status, out long allocated)
    {
        var source = new XeXmlEventSource("capture.xml", () => new MemoryStream(bytes, writable: false));
        status = new SourceStatus();
        var before = GC.GetAllocatedBytesForCurrentThread();
        var events = source.ReadEvents(status, CancellationToken.None).ToList();
        allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        return events;
    }
}
