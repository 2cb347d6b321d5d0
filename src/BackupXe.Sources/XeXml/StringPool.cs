namespace BackupXe.Sources.XeXml;

/// <summary>
/// Short texts that recur from event to event (event names, wait types, map names, database names, the fixed
/// phrases of trace messages), kept once and handed out again instead of a new string per event. A direct-mapped
/// cache: each text has one slot, chosen by a cheap hash of its characters, and a text that lands on an occupied
/// slot takes it over. So every look-up costs one hash and one comparison whatever the input (no chain for crafted
/// collisions to lengthen), and memory is bounded: at most <see cref="Slots"/> texts of at most
/// <see cref="MaxLength"/> characters.
/// </summary>
internal sealed class StringPool
{
    // A capture holds a few dozen event, wait and map names, one database name per database and ~200 distinct
    // fixed trace phrases; 1,024 slots hold them with room for collisions, at most 256 KB of text.
    internal const int Slots = 1024;
    internal const int MaxLength = 128;

    private readonly string?[] _slots = new string?[Slots];

    /// <summary>The kept string equal to <paramref name="text"/>, or a new one, kept in its slot from now on.</summary>
    public string Get(ReadOnlySpan<char> text)
    {
        if (text.IsEmpty)
        {
            return string.Empty;
        }

        if (text.Length > MaxLength)
        {
            return new string(text);
        }

        // Length, ends and middle tell the names of one capture apart; a collision only costs a new string.
        var hash = (uint)text.Length;
        hash = (hash * 31) + text[0];
        hash = (hash * 31) + text[^1];
        hash = (hash * 31) + text[text.Length / 2];
        hash = (hash * 31) + text[text.Length / 3];
        ref var slot = ref _slots[(hash ^ (hash >> 10)) & (Slots - 1)];
        if (slot is { } kept && text.SequenceEqual(kept))
        {
            return kept;
        }

        return slot = new string(text);
    }
}
