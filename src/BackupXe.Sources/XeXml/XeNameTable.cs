using System.Runtime.CompilerServices;
using System.Xml;

namespace BackupXe.Sources.XeXml;

/// <summary>
/// The XmlReader's name table with a direct-mapped cache in front. The reader atomizes every element and attribute
/// name it parses, about forty per XE event (<c>data</c>, <c>type</c>, <c>name</c>, <c>package</c>, <c>value</c>...),
/// all from a handful of names. The framework's <see cref="NameTable"/> hashes each with a randomized hash first, which
/// made the lookup a large share of an XE XML run. Here a name seen before is found by one cheap hash of its length and
/// ends and one comparison; anything else goes to the framework's table, whose atom is then kept in the slot.
/// </summary>
/// <remarks>
/// Safe on hostile input for the same reason <see cref="StringPool"/> is: a slot holds one name and a name that
/// lands on an occupied slot replaces it, so crafted collisions cost one comparison more per name and nothing
/// grows. Every atom comes from the inner table, so atoms stay unique and compare by reference as the reader and
/// <see cref="XeEventParser"/> expect.
/// </remarks>
internal sealed class XeNameTable : XmlNameTable
{
    // A power of two, so that the slot is the hash's low bits.
    private const int Slots = 128;

    private readonly NameTable _names = new();
    private readonly string?[] _slots = new string?[Slots];

    public override string Add(char[] array, int offset, int length)
    {
        var name = array.AsSpan(offset, length);
        if (name.IsEmpty)
        {
            return _names.Add(array, offset, length);
        }

        var index = SlotOf(name.Length, name[0], name[^1]);
        if (_slots[index] is { } kept && name.SequenceEqual(kept))
        {
            return kept;
        }

        return _slots[index] = _names.Add(array, offset, length);
    }

    public override string Add(string array)
    {
        ArgumentNullException.ThrowIfNull(array);
        if (array.Length == 0)
        {
            return _names.Add(array);
        }

        var index = SlotOf(array.Length, array[0], array[^1]);
        if (_slots[index] is { } kept && array.Equals(kept, StringComparison.Ordinal))
        {
            return kept;
        }

        return _slots[index] = _names.Add(array);
    }

    // A lookup that misses must not add: the reader uses Get to ask whether a name was ever atomized.
    public override string? Get(char[] array, int offset, int length) => _names.Get(array, offset, length);

    public override string? Get(string array) => _names.Get(array);

    /// <summary>
    /// Length and ends: cheap, and they give each name SQL Server writes in an XE document (event, data, action, type,
    /// name, package, timestamp, value, text, and the ring buffer's attributes) a slot of its own in 128 (checked by a
    /// test). A collision only sends a name to the inner table.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int SlotOf(int length, char first, char last) => (int)(((uint)length * 7 + ((uint)first * 3) + last) & (Slots - 1));
}
