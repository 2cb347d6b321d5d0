using System.Xml;
using BackupXe.Sources.XeXml;
using Xunit;

namespace BackupXe.Tests.Sources.XeXml;

/// <summary>
/// The XE XML reader's name table (<see cref="XeNameTable"/>): one atom per name whichever way it is asked for, as
/// the reader and the parser's reference comparisons need, whatever the names and however they collide.
/// </summary>
public sealed class XeNameTableTests
{
    // Every element and attribute name SQL Server writes in an XE document (ring_buffer target and event_data).
    private static readonly string[] WrittenNames =
    [
        "event", "data", "action", "type", "name", "package", "timestamp", "value", "text",
        "RingBufferTarget", "truncated", "processingTime", "totalEventsProcessed", "eventCount", "droppedCount", "memoryUsed",
    ];

    [Fact]
    public void A_name_added_again_by_characters_or_by_string_is_the_same_atom()
    {
        var names = new XeNameTable();

        var atoms = WrittenNames.Select(n => names.Add(n)).ToList();

        Assert.All(WrittenNames.Zip(atoms), p =>
        {
            var chars = ("<" + p.First + ">").ToCharArray();
            Assert.Same(p.Second, names.Add(chars, 1, p.First.Length));
            Assert.Same(p.Second, names.Add(new string(p.First.AsSpan())));
            Assert.Same(p.Second, names.Get(p.First));
            Assert.Same(p.Second, names.Get(chars, 1, p.First.Length));
        });
    }

    [Fact]
    public void Each_name_sql_server_writes_has_a_slot_of_its_own()
    {
        // A shared slot would send two names of every event to the framework's table, undoing the cache.
        var slots = WrittenNames.GroupBy(n => XeNameTable.SlotOf(n.Length, n[0], n[^1])).Where(g => g.Count() > 1).Select(g => string.Join("/", g));

        Assert.Empty(slots);
    }

    [Fact]
    public void Names_that_share_a_slot_each_keep_one_atom()
    {
        // Given far more distinct names than slots, asked for in turn, so that they keep displacing each other
        var names = new XeNameTable();
        var written = Enumerable.Range(0, 1000).Select(i => $"n{i}x").ToList();
        var first = written.Select(w => names.Add(w.ToCharArray(), 0, w.Length)).ToList();

        // When each is asked for again, by characters and by string
        var again = written.Select(w => names.Add(w.ToCharArray(), 0, w.Length)).ToList();
        var byString = written.Select(w => names.Add(w)).ToList();

        // Then every one is the atom it was given the first time
        Assert.Equal(written, first);
        Assert.All(first.Zip(again, byString), t =>
        {
            Assert.Same(t.First, t.Second);
            Assert.Same(t.First, t.Third);
        });
    }

    [Fact]
    public void Get_does_not_add_a_name_never_added()
    {
        var names = new XeNameTable();

        Assert.Null(names.Get("event"));
        Assert.Null(names.Get("event".ToCharArray(), 0, 5));
        Assert.Same(string.Empty, names.Add(string.Empty));
        Assert.Same(string.Empty, names.Add([], 0, 0));
    }

    [Fact]
    public void A_reader_on_the_table_matches_names_by_reference()
    {
        // The parser compares LocalName with atoms it added itself: a reader made with the XE XML reader's own
        // settings must hand out the same strings.
        var settings = XeXmlEventSource.ReaderSettings(closeInput: true);
        Assert.IsType<XeNameTable>(settings.NameTable);
        var eventAtom = settings.NameTable.Add("event");
        using var reader = XmlReader.Create(new StringReader("<event name='a'/><data/><event name='b'/>"), settings);

        var matched = 0;
        while (reader.Read())
        {
            if (ReferenceEquals(reader.LocalName, eventAtom))
            {
                matched++;
            }
        }

        Assert.Equal(2, matched);
    }
}
