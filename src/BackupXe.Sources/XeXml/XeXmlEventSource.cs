using System.Xml;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Sources.Formats;
using BackupXe.Sources.IO;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.XeXml;

/// <summary>
/// Extended Events as XML: a ring_buffer target (<c>&lt;RingBufferTarget&gt;&lt;event/&gt;...</c>), the
/// <c>event_data</c> rows of <c>sys.fn_xe_file_target_read_file</c> saved one after another with no root,
/// or the same events wrapped in any root element. Read as a stream: memory does not grow with the file.
/// </summary>
internal sealed class XeXmlEventSource : ISynchronousTraceEventSource, IReadAheadAdvice, IXeEventSource
{
    private readonly Func<Stream> _open;

    /// <summary>
    /// The settings of every XE XML reader, each with a name table of its own: one that finds the few names of an XE
    /// document without hashing them (<see cref="XeNameTable"/>).
    /// </summary>
    internal static XmlReaderSettings ReaderSettings(bool closeInput) => new()
    {
        // event_data rows saved back to back have no single root; a fragment reader accepts that and a
        // wrapped document alike.
        ConformanceLevel = ConformanceLevel.Fragment,
        IgnoreWhitespace = true,
        IgnoreComments = true,
        IgnoreProcessingInstructions = true,
        DtdProcessing = DtdProcessing.Prohibit,
        XmlResolver = null,
        NameTable = new XeNameTable(),
        CloseInput = closeInput,
    };

    /// <summary>Reads the file at <paramref name="path"/>.</summary>
    public XeXmlEventSource(string path)
        : this(path, () => InputFile.OpenRead(path))
    {
    }

    /// <param name="name">What the user named, reported as <see cref="Name"/>.</param>
    /// <param name="open">Opens the content; called once per read. A UTF-16 BOM decides the encoding; else UTF-8's BOM or the declaration, unless <paramref name="recognisedEncoding"/> is UTF-16.</param>
    /// <param name="recognisedEncoding">
    /// The encoding format detection found the text in. When it is UTF-16 (by BOM or by the zero bytes of ASCII text) it
    /// decides, not the declaration: a file re-encoded by an editor or PowerShell keeps its <c>encoding="utf-8"</c>.
    /// </param>
    public XeXmlEventSource(string name, Func<Stream> open, System.Text.Encoding? recognisedEncoding = null)
    {
        Name = name;
        _open = open;
        _utf16 = recognisedEncoding as System.Text.UnicodeEncoding;
    }

    private readonly System.Text.UnicodeEncoding? _utf16;

    public string Name { get; }

    public string Format => "xe-xml";

    /// <summary>
    /// False: reading the XML is nearly all of an XE XML run, so a read-ahead thread would only wait for batches and
    /// its hand-overs would cost CPU the reader needs (measured in docs/performance.md, "XE XML on one thread").
    /// </summary>
    public bool ReadAheadPays => false;

    public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken) =>
        ReadEvents(status, cancellationToken).ToAsyncEnumerable();

    public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken) =>
        Read<TraceEvent>(status, static (XeEventParser parser, SourceStatus s, out TraceEvent? e) => parser.ReadNext(s, out e), cancellationToken);

    /// <summary>Every event whole, every field and action kept (for <c>backupxe events</c>).</summary>
    public IAsyncEnumerable<XeEvent> ReadXeEventsAsync(SourceStatus status, CancellationToken cancellationToken) =>
        Read<XeEvent>(status, static (XeEventParser parser, SourceStatus s, out XeEvent? e) => parser.ReadNextWhole(s, out e), cancellationToken).ToAsyncEnumerable();

    /// <summary>
    /// One pass over the elements' names only: XE XML declares no fields up front, and a value is never materialised
    /// here. A file that does not parse stops the pass where it breaks; the listing reports it.
    /// </summary>
    public void AddNames(XeNames names, CancellationToken cancellationToken)
    {
        using var reader = OpenReader(new SourceStatus());
        if (reader is null)
        {
            return;
        }

        var data = reader.NameTable.Add("data");
        var action = reader.NameTable.Add("action");
        var count = 0;
        try
        {
            while (reader.Read())
            {
                if ((++count & 0xFFFF) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                if (reader.NodeType != XmlNodeType.Element)
                {
                    continue;
                }

                if (ReferenceEquals(reader.LocalName, data))
                {
                    names.AddField(reader.GetAttribute("name"));
                }
                else if (ReferenceEquals(reader.LocalName, action))
                {
                    names.AddAction(reader.GetAttribute("package"), reader.GetAttribute("name"));
                }
            }
        }
        catch (XmlException)
        {
        }
    }

    private delegate XeReadOutcome ReadOne<T>(XeEventParser parser, SourceStatus status, out T? item);

    private IEnumerable<T> Read<T>(SourceStatus status, ReadOne<T> readOne, CancellationToken cancellationToken)
    {
        var reader = OpenReader(status);
        if (reader is null)
        {
            yield break;
        }

        using (reader)
        {
            // XmlReader's async API adds a task per node; the sync reads only block on a local file's buffer
            // refills, so the loop reads synchronously and hands events over one at a time.
            var parser = new XeEventParser(reader);
            var found = 0L;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var outcome = readOne(parser, status, out var item);
                if (outcome is XeReadOutcome.End or XeReadOutcome.Broken)
                {
                    if (found == 0)
                    {
                        status.Unusable = true;
                        if (outcome is XeReadOutcome.End)
                        {
                            status.Report("file", "no Extended Events <event> element found");
                        }
                    }

                    yield break;
                }

                found++;
                if (outcome is XeReadOutcome.Event)
                {
                    status.Events++;
                    yield return item!;
                }
                else if (outcome is XeReadOutcome.NotAnalysed)
                {
                    status.Events++;
                }
            }
        }
    }

    private XmlReader? OpenReader(SourceStatus status)
        => TextInput.Opened(status, () => Reader(_open()));

    // UTF-8 goes to the XML reader as bytes (it decodes them and reports a bad one where it is); UTF-16, by BOM or by
    // its zero bytes, is decoded here, so that a declaration left at "utf-8" by whatever re-encoded the file does not
    // switch the reader to the wrong encoding. Either way long CDATA sections reach the reader as character data.
    private XmlReader Reader(Stream stream)
    {
        var read = StreamHead.Read(stream, 2);
        var head = read.Span;
        var bigEndian = head is [0xFE, 0xFF] || (head is not [0xFF, 0xFE] && _utf16 is { CodePage: 1201 });
        var bom = head is [0xFF, 0xFE] or [0xFE, 0xFF];
        var utf16 = bom || _utf16 is not null;
        var content = new PrefixedStream(bom ? ReadOnlyMemory<byte>.Empty : read, stream);
        if (!utf16)
        {
            return XmlReader.Create(new BoundedCDataStream(content), ReaderSettings(closeInput: true));
        }

        var decoded = new StreamReader(
            content, new System.Text.UnicodeEncoding(bigEndian, byteOrderMark: false, throwOnInvalidBytes: true), detectEncodingFromByteOrderMarks: false);
        return XmlReader.Create(new BoundedCDataReader(decoded), ReaderSettings(closeInput: true));
    }
}
