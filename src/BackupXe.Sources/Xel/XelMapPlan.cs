using System.Runtime.CompilerServices;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>
/// One map of a file's metadata, resolved once for all the file's buffers: a key's text found by indexing an array
/// instead of hashing (a wait_info event has two map fields), and its entry, under which a listing keeps what it
/// writes of the text. The first text of a key the metadata repeats is the one kept.
/// </summary>
internal sealed class XelMapPlan
{
    // The maps SQL Server writes are keyed from 0 to a few thousand; one with larger keys is searched by hash.
    private const uint MaxDenseKey = 1 << 16;

    // A key's entry plus one (0: not in the map).
    private readonly int[] _dense = [];
    private readonly Dictionary<uint, int>? _sparse;

    public XelMapPlan(XelMap map, XeShapes shapes)
    {
        var entries = new Dictionary<uint, int>(map.Entries.Count);
        var texts = new List<string>(map.Entries.Count);
        foreach (var (key, text) in map.Entries)
        {
            if (entries.TryAdd(key, texts.Count))
            {
                texts.Add(text);
            }
        }

        Texts = [.. texts];
        Shape = shapes.AddMap(Texts);
        var largest = entries.Count == 0 ? 0 : entries.Keys.Max();
        if (largest < MaxDenseKey)
        {
            _dense = new int[largest + 1];
            foreach (var (key, entry) in entries)
            {
                _dense[key] = entry + 1;
            }
        }
        else
        {
            _sparse = entries;
        }
    }

    /// <summary>The texts, at their entries.</summary>
    public string[] Texts { get; }

    /// <summary>The map as a listing names it.</summary>
    public XeMapShape Shape { get; }

    /// <summary>The entry of <paramref name="key"/>, or false when the map does not have it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryEntry(ulong key, out int entry)
    {
        if (key < (ulong)_dense.Length)
        {
            entry = _dense[(int)key] - 1;
            return entry >= 0;
        }

        if (_sparse is not null && key <= uint.MaxValue)
        {
            return _sparse.TryGetValue((uint)key, out entry);
        }

        entry = -1;
        return false;
    }

    /// <summary>The text of <paramref name="key"/>, or null when the map does not have it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public string? Text(ulong key) => TryEntry(key, out var entry) ? Texts[entry] : null;
}
