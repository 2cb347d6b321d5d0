using System.Collections.Immutable;
using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>How a value's bytes are turned into a value (docs/xel-format.md section 6).</summary>
internal enum XelValueKind
{
    Signed,
    Unsigned,
    Boolean,
    Float,
    Pointer,
    Guid,
    ActivityId,
    UnicodeString,
    AnsiString,
    Binary,
    Map,

    /// <summary>A type this reader does not know: its bytes, unread.</summary>
    Raw,
}

/// <summary>
/// One data column or action, resolved once per metadata against its type or map: how wide it is, how to decode
/// it, and which field BackupXe analyses it as (<see cref="XeField.None"/> for the rest).
/// </summary>
internal sealed class XelValuePlan
{
    private static readonly ImmutableArray<string> SmallNumbers = [.. Enumerable.Range(0, 1024).Select(i => i.ToString(CultureInfo.InvariantCulture))];

    // What the analysed field keeps of a number: the number itself, or its digits as text (a wait type keeps its
    // map text only, so no digits are made for it).
    private readonly bool _numeric;
    private readonly bool _keepsValue;

    // A field without text is wholly replaced by its number: nothing of an earlier occurrence is left to forget.
    private readonly bool _hasText;

    private XelValuePlan(string name, string package, string typeName, XelValueKind kind, int size, int offset, XelMapPlan? map, bool isAction, int index)
    {
        Shape = new XeColumnShape(index, name, package, typeName, isAction, map?.Shape);
        Name = name;
        Package = package;
        TypeName = typeName;
        Kind = kind;
        Size = size;
        Offset = offset;
        Map = map;
        Field = isAction ? XeEventFields.ClassifyAction(name) : XeEventFields.Classify(name);
        _numeric = XeEventFields.IsNumeric(Field);
        _keepsValue = XeEventFields.UsesValue(Field) && !_numeric;
        _hasText = XeEventFields.UsesText(Field);
    }

    public string Name { get; }

    public string Package { get; }

    public string TypeName { get; }

    public XelValueKind Kind { get; }

    /// <summary>Bytes in the payload's fixed area; 0 for a variable-length value (an 8-byte offset/length descriptor).</summary>
    public int Size { get; }

    /// <summary>Offset in the event payload (data columns only).</summary>
    public int Offset { get; }

    public XelMapPlan? Map { get; }

    public XeField Field { get; }

    /// <summary>The column as a listing names it.</summary>
    public XeColumnShape Shape { get; }

    public bool IsVariable => Size == 0;

    /// <summary><see cref="Size"/> of a column of unknown type that is last in the fixed area.</summary>
    public const int RunsToFixedEnd = -1;

    /// <summary>Whether an action value of <paramref name="length"/> bytes can be read as this type.</summary>
    public bool Fits(int length) => Size <= 0 || length == Size;

    /// <param name="index">Where the column is among its event's fields, or the action among the file's actions.</param>
    /// <param name="maps">The file's maps, resolved once for all its columns and actions.</param>
    public static XelValuePlan For(XelCatalogue catalogue, IReadOnlyDictionary<uint, XelMapPlan> maps, string name, string package, uint typeId, int index, int offset = 0, int unknownSize = 0, bool isAction = false)
    {
        if (catalogue.Maps.TryGetValue(typeId, out var map))
        {
            var kind = map.KeySize is 1 or 2 or 4 or 8 ? XelValueKind.Map : XelValueKind.Raw;
            return new XelValuePlan(name, package, map.Name, kind, Math.Max((int)map.KeySize, 1), offset, maps[typeId], isAction, index);
        }

        if (!catalogue.Types.TryGetValue(typeId, out var type))
        {
            // Not described by this file: its width comes from the column layout (or the action's length); the last
            // fixed column runs to where the variable data starts (RunsToFixedEnd).
            return new XelValuePlan(name, package, $"0x{typeId:X8}", XelValueKind.Raw, unknownSize > 0 ? unknownSize : RunsToFixedEnd, offset, null, isAction, index);
        }

        return new XelValuePlan(name, package, type.Name, KindOf(type.Name, type.Size), type.Size, offset, null, isAction, index);
    }

    private static XelValueKind KindOf(string typeName, int size)
    {
        var integral = size is 1 or 2 or 4 or 8;
        return typeName switch
        {
            "int8" or "int16" or "int32" or "int64" when integral => XelValueKind.Signed,
            "uint8" or "uint16" or "uint32" or "uint64" when integral => XelValueKind.Unsigned,
            "boolean" when integral => XelValueKind.Boolean,
            "float32" when size == 4 => XelValueKind.Float,
            "float64" when size == 8 => XelValueKind.Float,
            "ptr" when integral => XelValueKind.Pointer,
            "guid" or "guid_ptr" when size == 16 => XelValueKind.Guid,
            "activity_id" or "activity_id_xfer" when size == 20 => XelValueKind.ActivityId,
            "unicode_string" or "unicode_string_ptr" or "xml" when size == 0 => XelValueKind.UnicodeString,
            "ansi_string" or "ansi_string_ptr" when size == 0 => XelValueKind.AnsiString,
            _ when size == 0 => XelValueKind.Binary,
            // A fixed-size type of unknown meaning: an unsigned integer when it has an integer's width, else bytes.
            _ when integral => XelValueKind.Unsigned,
            _ => XelValueKind.Raw,
        };
    }

    /// <summary>The value of <paramref name="bytes"/> as <see cref="XeValue.Value"/> holds it; a map also gets its text.</summary>
    public object? Decode(ReadOnlySpan<byte> bytes, out string? text)
    {
        text = null;
        switch (Kind)
        {
            case XelValueKind.Map:
                var key = Unsigned(bytes);
                text = Map!.Text(key);
                return key;
            case XelValueKind.Unsigned:
            case XelValueKind.Pointer:
                return Unsigned(bytes);
            case XelValueKind.Signed:
                return Signed(bytes);
            case XelValueKind.Boolean:
                return Unsigned(bytes) != 0;
            case XelValueKind.Float:
                return bytes.Length == 4 ? BinaryPrimitives.ReadSingleLittleEndian(bytes) : BinaryPrimitives.ReadDoubleLittleEndian(bytes);
            case XelValueKind.Guid:
                return new Guid(bytes);
            case XelValueKind.ActivityId:
                return new XeActivityId(new Guid(bytes[..16]), BinaryPrimitives.ReadUInt32LittleEndian(bytes[16..]));
            case XelValueKind.UnicodeString:
                return Encoding.Unicode.GetString(bytes);
            case XelValueKind.AnsiString:
                // The code page is not recorded in the file; Latin-1 keeps every byte.
                return Encoding.Latin1.GetString(bytes);
            default:
                return bytes.ToArray();
        }
    }

    /// <summary>Tells <paramref name="listing"/> the value of <paramref name="bytes"/> as <see cref="Decode"/> would give it.</summary>
    public void List(IXeEventListing listing, ReadOnlySpan<byte> bytes)
    {
        switch (Kind)
        {
            case XelValueKind.Map:
                var key = Unsigned(bytes);
                if (Map!.TryEntry(key, out var entry))
                {
                    listing.MapText(Shape, entry);
                }
                else if (TypeName == "ptr")
                {
                    listing.Pointer(Shape, key);
                }
                else
                {
                    listing.Unsigned(Shape, key);
                }

                break;
            case XelValueKind.Unsigned:
                listing.Unsigned(Shape, Unsigned(bytes));
                break;
            case XelValueKind.Pointer:
                listing.Pointer(Shape, Unsigned(bytes));
                break;
            case XelValueKind.Signed:
                listing.Signed(Shape, Signed(bytes));
                break;
            case XelValueKind.Boolean:
                listing.Boolean(Shape, Unsigned(bytes) != 0);
                break;
            case XelValueKind.Float:
                listing.Float(Shape, bytes.Length == 4 ? BinaryPrimitives.ReadSingleLittleEndian(bytes) : BinaryPrimitives.ReadDoubleLittleEndian(bytes));
                break;
            case XelValueKind.Guid:
                listing.Guid(Shape, new Guid(bytes), null);
                break;
            case XelValueKind.ActivityId:
                listing.Guid(Shape, new Guid(bytes[..16]), BinaryPrimitives.ReadUInt32LittleEndian(bytes[16..]));
                break;
            case XelValueKind.UnicodeString:
                ListUnicode(listing, bytes);
                break;
            case XelValueKind.AnsiString:
                ListLatin1(listing, bytes);
                break;
            default:
                listing.Binary(Shape, bytes);
                break;
        }
    }

    /// <summary>
    /// UTF-16LE text handed on as the buffer's own characters when they are what decoding would give (whole
    /// characters, no surrogate to repair), else decoded as <see cref="Decode"/> decodes it.
    /// </summary>
    private void ListUnicode(IXeEventListing listing, ReadOnlySpan<byte> bytes)
    {
        if (BitConverter.IsLittleEndian && bytes.Length % 2 == 0)
        {
            var chars = MemoryMarshal.Cast<byte, char>(bytes);
            if (!chars.ContainsAnyInRange('\uD800', '\uDFFF'))
            {
                listing.Text(Shape, chars);
                return;
            }
        }

        listing.Text(Shape, Encoding.Unicode.GetString(bytes));
    }

    private void ListLatin1(IXeEventListing listing, ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length > 512)
        {
            listing.Text(Shape, Encoding.Latin1.GetString(bytes));
            return;
        }

        Span<char> chars = stackalloc char[bytes.Length];
        listing.Text(Shape, chars[..Encoding.Latin1.GetChars(bytes, chars)]);
    }

    /// <summary>The value as XE XML's <c>&lt;value&gt;</c> text would carry it, for the analysed fields only.</summary>
    public string DecodeText(ReadOnlySpan<byte> bytes, out string? text)
    {
        text = null;
        switch (Kind)
        {
            case XelValueKind.Map:
                var key = Unsigned(bytes);
                text = Map!.Text(key);
                return Number(key);
            case XelValueKind.Unsigned:
                return Number(Unsigned(bytes));
            case XelValueKind.Signed:
                var signed = Signed(bytes);
                return signed >= 0 ? Number((ulong)signed) : signed.ToString(CultureInfo.InvariantCulture);
            case XelValueKind.UnicodeString:
                return Encoding.Unicode.GetString(bytes);
            default:
                return XeValue.Format(TypeName, Decode(bytes, out text));
        }
    }

    /// <summary>
    /// Keeps the value in <paramref name="fields"/> as <see cref="XeEventFields.Set"/> would keep its
    /// <see cref="DecodeText"/>, numbers as numbers without a string between.
    /// </summary>
    public void DecodeInto(XeEventFields fields, ReadOnlySpan<byte> bytes)
    {
        switch (Kind)
        {
            case XelValueKind.Map when Field is XeField.WaitType or XeField.Opcode:
                // A wait's two map fields, on every wait: set in one call, as the general case below leaves them.
                var mapped = Unsigned(bytes);
                fields.SetMapped(Field, mapped, Map!.Text(mapped));
                break;
            case XelValueKind.Map:
            case XelValueKind.Unsigned:
                var key = Unsigned(bytes);
                if (_hasText || !_numeric)
                {
                    fields.Begin(Field);
                }

                if (_numeric && key <= long.MaxValue)
                {
                    fields.SetNumber(Field, XeNumber.OfNonNegative((long)key));
                }
                else if (_numeric)
                {
                    fields.SetNumber(Field, XeNumber.Of(key));
                }
                else if (_keepsValue)
                {
                    fields.SetValue(Field, Number(key));
                }

                if (Kind == XelValueKind.Map && Map!.Text(key) is { } name)
                {
                    fields.SetText(Field, name);
                }

                break;
            case XelValueKind.Signed when _numeric:
                fields.Begin(Field);
                var signed = Signed(bytes);
                if (signed >= 0)
                {
                    fields.SetNumber(Field, XeNumber.OfNonNegative(signed));
                }
                else
                {
                    fields.SetNumber(Field, XeNumber.Of(signed));
                }

                break;
            default:
                DecodeTextInto(fields, bytes);
                break;
        }
    }

    // Out of line: its locals gave every call of DecodeInto, a wait's four numbers included, a frame to clear.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void DecodeTextInto(XeEventFields fields, ReadOnlySpan<byte> bytes)
    {
        var value = DecodeText(bytes, out var text);
        fields.Set(Field, value, text);
    }

    /// <summary>An unsigned value or map key from its bytes (1, 2, 4 or 8 of them; 0 for another length).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong KeyOf(ReadOnlySpan<byte> bytes) => Unsigned(bytes);

    private static string Number(ulong value) =>
        value < (ulong)SmallNumbers.Length ? SmallNumbers[(int)value] : value.ToString(CultureInfo.InvariantCulture);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Unsigned(ReadOnlySpan<byte> bytes) => bytes.Length switch
    {
        1 => bytes[0],
        2 => BinaryPrimitives.ReadUInt16LittleEndian(bytes),
        4 => BinaryPrimitives.ReadUInt32LittleEndian(bytes),
        8 => BinaryPrimitives.ReadUInt64LittleEndian(bytes),
        _ => 0,
    };

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long Signed(ReadOnlySpan<byte> bytes) => bytes.Length switch
    {
        1 => (sbyte)bytes[0],
        2 => BinaryPrimitives.ReadInt16LittleEndian(bytes),
        4 => BinaryPrimitives.ReadInt32LittleEndian(bytes),
        8 => BinaryPrimitives.ReadInt64LittleEndian(bytes),
        _ => 0,
    };
}

/// <summary>An event's columns resolved against its file's metadata, in payload order.</summary>
internal sealed class XelEventPlan
{
    public XelEventPlan(XelEventClass eventClass, XelCatalogue catalogue, IReadOnlyDictionary<uint, XelMapPlan> maps, XeShapes shapes)
    {
        Class = eventClass;
        var columns = eventClass.DataColumns;
        var plans = new XelValuePlan[columns.Count];
        for (var i = 0; i < columns.Count; i++)
        {
            var column = columns[i];
            // A type the file does not describe is as wide as the gap to the next column that starts after it.
            var next = columns.Where(c => c.PayloadOffset > column.PayloadOffset).Select(c => (int)c.PayloadOffset).DefaultIfEmpty(-1).Min();
            var gap = next < 0 ? 0 : next - column.PayloadOffset;
            plans[i] = XelValuePlan.For(catalogue, maps, column.Name, eventClass.Package, column.TypeId, i, column.PayloadOffset, gap);
        }

        Columns = plans;
        Shape = shapes.AddEvent(eventClass.Name, eventClass.Package, [.. plans.Select(p => p.Shape)]);

        // An event that becomes no more than its time and session needs no other column: its payload is not read.
        Kind = XeEventMapping.KindOf(eventClass.Name);
        Analysed = Kind != XeEventKind.Other
            ? plans.Where(p => p.Field != XeField.None).ToArray()
            : plans.Where(p => p.Field == XeField.SessionId).ToArray();

        ColumnsEnd = FixedEnd(plans);
        AnalysedEnd = FixedEnd(Analysed);

        // A wait's Begin is counted, not analysed: once its opcode says so, only its session is read. Taken only where
        // every analysed column is fixed-size, so that a payload long enough for all of them can damage none.
        if (Kind is XeEventKind.Wait or XeEventKind.ExternalWait
            && Analysed.SingleOrDefault(p => p.Field == XeField.Opcode) is { } opcode
            && AnalysedEnd != int.MaxValue)
        {
            Opcode = opcode;
            BeginColumns = [.. Analysed.Where(p => p.Field == XeField.SessionId)];
            EndColumns = [.. Analysed.Where(p => p != opcode)];
            Wait = XelWaitColumns.For(Analysed);
        }
    }

    /// <summary>A wait's columns where each can be read straight from the payload; null otherwise.</summary>
    public XelWaitColumns? Wait { get; }

    /// <summary>
    /// The payload length that holds every column when all are fixed-size; <see cref="int.MaxValue"/> when one is not. A
    /// payload at least this long holds each column whole: its bytes are sliced with no check of their own.
    /// </summary>
    public int ColumnsEnd { get; }

    /// <summary>The same for the columns BackupXe analyses (<see cref="Analysed"/>).</summary>
    public int AnalysedEnd { get; }

    /// <summary>A wait's opcode column, read first when <see cref="BeginColumns"/> may be all a record needs; null otherwise.</summary>
    public XelValuePlan? Opcode { get; }

    /// <summary>What a Begin reads besides its opcode (with <see cref="Opcode"/>).</summary>
    public XelValuePlan[] BeginColumns { get; } = [];

    /// <summary>What any other opcode reads besides its opcode (with <see cref="Opcode"/>).</summary>
    public XelValuePlan[] EndColumns { get; } = [];

    public XelEventClass Class { get; }

    /// <summary>Which event BackupXe reads it as, resolved once rather than by its name per event.</summary>
    public XeEventKind Kind { get; }

    public XelValuePlan[] Columns { get; }

    /// <summary>The event class as a listing names it.</summary>
    public XeEventShape Shape { get; }

    /// <summary>The columns BackupXe reads for analysis; the rest are decoded only when listing.</summary>
    public XelValuePlan[] Analysed { get; }

    private static int FixedEnd(XelValuePlan[] columns) =>
        columns.All(p => p.Size > 0) ? columns.Select(p => p.Offset + p.Size).DefaultIfEmpty(0).Max() : int.MaxValue;
}
