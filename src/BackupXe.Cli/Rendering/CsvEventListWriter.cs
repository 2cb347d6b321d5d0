using System.Globalization;
using System.Text;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// CSV (RFC 4180): one row per event, a column per field and per action. The columns are known before the first row
/// (<see cref="XeNames"/>, gathered by a first pass that reads no event): <c>timestamp,name,package</c>, then every
/// data field by name in ordinal order, then every action as <c>package.name</c> in ordinal order; an event leaves
/// the cells of fields it lacks empty. Numbers and booleans are written as such (a negative number is no formula);
/// text follows <see cref="CsvCell.Of"/>. An event's cells are written as its values come, then the row in column order.
/// </summary>
internal sealed class CsvEventListWriter : EventListWriter
{
    private readonly Dictionary<string, int> _fieldColumns = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Package, string Name), int> _actionColumns = [];
    private readonly IReadOnlyList<string> _header;
    private readonly SortedSet<string> _unplaced = new(StringComparer.Ordinal);

    // The current event's cells, in the order its values came, and where each column's cell is among them.
    private readonly OutputBuffer _cells = new(4096);
    private readonly int[] _cellStart;
    private readonly int[] _cellEnd;

    // A file's columns and names, placed once per file: each event's name and package cells, each field's and
    // action's column (-1: none).
    private PreparedBytes[] _nameCells = [];
    private int[][] _fieldPlaces = [];
    private int[] _actionPlaces = [];
    private int[] _fields = [];
    private int _column;
    private DateTime _timestamp;
    private XeEventShape? _event;

    public CsvEventListWriter(OutputBuffer output, XeNames names, HashSet<string>? wanted = null)
        : base(output, wanted)
    {
        var header = new List<string> { "timestamp", "name", "package" };
        foreach (var field in names.Fields)
        {
            _fieldColumns.Add(field, header.Count - 3);
            header.Add(field);
        }

        foreach (var action in names.Actions)
        {
            _actionColumns.Add(action, header.Count - 3);
            header.Add(ActionColumn(action.Package, action.Name));
        }

        _header = header;
        _cellStart = new int[header.Count - 3];
        _cellEnd = new int[header.Count - 3];
    }

    /// <summary>Names an event carried that had no column (met after the header was written): their values are not in the output.</summary>
    public IReadOnlyCollection<string> Unplaced => _unplaced;

    public static string ActionColumn(string package, string name) => package.Length == 0 ? name : package + "." + name;

    public override void Absorb(EventListWriter part)
    {
        foreach (var name in ((CsvEventListWriter)part)._unplaced)
        {
            if (_unplaced.Count >= XeNames.MaxNames)
            {
                break;
            }

            _unplaced.Add(name);
        }
    }

    public override void Clear()
    {
        base.Clear();
        _unplaced.Clear();
    }

    public override void Start()
    {
        for (var i = 0; i < _header.Count; i++)
        {
            if (i > 0)
            {
                Output.Write((byte)',');
            }

            TextCell(Output, _header[i]);
        }

        Output.Write(NewLine);
    }

    public override void Write(XeEvent xeEvent)
    {
        BeginRow();
        foreach (var field in xeEvent.Fields)
        {
            if (Place(_fieldColumns.TryGetValue(field.Name, out var column) ? column : -1, field.Name))
            {
                Cell(field);
                Placed();
            }
        }

        foreach (var action in xeEvent.Actions)
        {
            if (Place(_actionColumns.TryGetValue((action.Package, action.Name), out var column) ? column : -1, null, action))
            {
                Cell(action);
                Placed();
            }
        }

        Timestamp(xeEvent.Timestamp);
        Output.Write((byte)',');
        TextCell(Output, xeEvent.Name);
        Output.Write((byte)',');
        TextCell(Output, xeEvent.Package);
        Row();
    }

    public override void Unsigned(XeColumnShape column, ulong value)
    {
        if (Place(column))
        {
            Number(_cells, value);
            Placed();
        }
    }

    public override void Signed(XeColumnShape column, long value)
    {
        if (Place(column))
        {
            Number(_cells, value);
            Placed();
        }
    }

    public override void Boolean(XeColumnShape column, bool value)
    {
        if (Place(column))
        {
            _cells.Write(value ? "true"u8 : "false"u8);
            Placed();
        }
    }

    public override void Float(XeColumnShape column, double value)
    {
        if (Place(column))
        {
            FloatCell(value);
            Placed();
        }
    }

    public override void Pointer(XeColumnShape column, ulong value)
    {
        if (Place(column))
        {
            // Digits only: no quote or formula to guard.
            PointerDigits(_cells, value);
            Placed();
        }
    }

    public override void Text(XeColumnShape column, ReadOnlySpan<char> text)
    {
        if (Place(column))
        {
            TextCell(_cells, text);
            Placed();
        }
    }

    public override void MapText(XeColumnShape column, int entry)
    {
        if (Place(column))
        {
            MapText(_cells, column, entry, WriteCell);
            Placed();
        }
    }

    public override void Guid(XeColumnShape column, Guid value, uint? sequence)
    {
        if (Place(column))
        {
            Span<char> chars = stackalloc char[48];
            TextCell(_cells, chars[..GuidText(value, sequence, chars)]);
            Placed();
        }
    }

    public override void Binary(XeColumnShape column, ReadOnlySpan<byte> bytes)
    {
        if (Place(column))
        {
            HexDigits(_cells, bytes);
            Placed();
        }
    }

    protected override void Prepare(XeShapes shapes)
    {
        _nameCells = [.. shapes.Events.Select(NameCells)];
        _fieldPlaces = [.. shapes.Events.Select(e => e.Fields.Select(f => _fieldColumns.GetValueOrDefault(f.Name, -1)).ToArray())];
        _actionPlaces = [.. shapes.Actions.Select(a => _actionColumns.GetValueOrDefault((a.Package, a.Name), -1))];
    }

    protected override void BeginEvent(XeEventShape shape, DateTime timestamp)
    {
        BeginRow();
        _event = shape;
        _timestamp = timestamp;
        _fields = _fieldPlaces[shape.Index];
    }

    protected override void EndEvent()
    {
        Timestamp(_timestamp);
        Output.Write(_nameCells[_event!.Index]);
        Row();
    }

    protected override void AbandonEvent()
    {
        // Nothing of the event reaches the output before its end.
    }

    private static void WriteCell(OutputBuffer output, string text) => TextCell(output, text);

    /// <summary>Writes what <see cref="CsvCell.Of"/> makes of <paramref name="text"/>, without making a string of it.</summary>
    private static void TextCell(OutputBuffer output, ReadOnlySpan<char> text)
    {
        if (text.IsEmpty)
        {
            return;
        }

        var quoted = text.IndexOfAny(",\"\r\n") >= 0;
        if (quoted)
        {
            output.Write((byte)'"');
        }

        if (text[0] is '=' or '+' or '-' or '@' or '\t' or '\r')
        {
            output.Write((byte)'\'');
        }

        while (true)
        {
            var quote = quoted ? text.IndexOf('"') : -1;
            var part = quote < 0 ? text : text[..(quote + 1)];
            var span = output.GetSpan(Encoding.UTF8.GetMaxByteCount(part.Length));
            output.Advance(Encoding.UTF8.GetBytes(part, span));
            if (quote < 0)
            {
                break;
            }

            output.Write((byte)'"');
            text = text[(quote + 1)..];
        }

        if (quoted)
        {
            output.Write((byte)'"');
        }
    }

    private static PreparedBytes NameCells(XeEventShape shape)
    {
        var cells = new OutputBuffer(64);
        cells.Write((byte)',');
        TextCell(cells, shape.Name);
        cells.Write((byte)',');
        TextCell(cells, shape.Package);
        return new PreparedBytes(cells.Gathered);
    }

    private void BeginRow()
    {
        _cells.Clear();
        Array.Clear(_cellEnd);
    }

    /// <summary>Starts the cell of a value told through the listing; false when it has no column.</summary>
    private bool Place(XeColumnShape column) =>
        column.IsAction
            ? Place(_actionPlaces[column.Index], null, column)
            : Place(_fields[column.Index], column.Name);

    /// <summary>Starts the cell of <paramref name="column"/>; with none (-1), notes the field's or action's name instead.</summary>
    private bool Place(int column, string? field, object? action = null)
    {
        if (column >= 0)
        {
            _column = column;
            _cellStart[column] = _cells.Length;
            return true;
        }

        if (_unplaced.Count < XeNames.MaxNames)
        {
            _unplaced.Add(field ?? action switch
            {
                XeValue value => ActionColumn(value.Package, value.Name),
                XeColumnShape shape => ActionColumn(shape.Package, shape.Name),
                _ => string.Empty,
            });
        }

        return false;
    }

    /// <summary>Ends the cell started last; a later value of the same column replaces it.</summary>
    private void Placed() => _cellEnd[_column] = _cells.Length;

    /// <summary>The rest of the row after its name and package: each column's cell, empty where the event had none.</summary>
    private void Row()
    {
        Output.WriteRuns((byte)',', _cells, _cellStart, _cellEnd);
        Output.Write(NewLine);
        Output.WriteIfFull();
    }

    private void Cell(XeValue value)
    {
        switch (value)
        {
            case { Text: { } text }:
                TextCell(_cells, text);
                break;
            case { Value: ulong u } when value.Type != "ptr":
                Number(_cells, u);
                break;
            case { Value: long l }:
                Number(_cells, l);
                break;
            case { Value: double d }:
                FloatCell(d);
                break;
            case { Value: bool b }:
                _cells.Write(b ? "true"u8 : "false"u8);
                break;
            default:
                TextCell(_cells, value.Display);
                break;
        }
    }

    private void FloatCell(double value)
    {
        if (double.IsFinite(value))
        {
            Number(_cells, value);
        }
        else
        {
            TextCell(_cells, value.ToString(null, CultureInfo.InvariantCulture));
        }
    }
}
