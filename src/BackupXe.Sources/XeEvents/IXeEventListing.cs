namespace BackupXe.Sources.XeEvents;

/// <summary>
/// Hears a decoded buffer's events value by value, straight from the buffer's bytes: what a listing writes without
/// an <see cref="XeEvent"/> or a string per value. Each event is <see cref="Begin"/>, its data fields in payload
/// order, its actions in record order, then <see cref="End"/>; or <see cref="Abandon"/> when damage found inside
/// the event skips it (what was heard of it is to be forgotten). A value is heard as <see cref="XeValue"/> would
/// hold it: <see cref="XeValue.Display"/> of each call's value is what the whole event would display.
/// </summary>
public interface IXeEventListing
{
    /// <summary>Starts an event; false to hear none of its values (it is still ended or abandoned).</summary>
    bool Begin(XeEventShape shape, DateTime timestamp);

    /// <summary>An unsigned integer, or a map key that is not in its map.</summary>
    void Unsigned(XeColumnShape column, ulong value);

    void Signed(XeColumnShape column, long value);

    void Boolean(XeColumnShape column, bool value);

    void Float(XeColumnShape column, double value);

    /// <summary>A pointer: displayed as <c>0x</c> and 16 hexadecimal digits.</summary>
    void Pointer(XeColumnShape column, ulong value);

    /// <summary>A string.</summary>
    void Text(XeColumnShape column, ReadOnlySpan<char> text);

    /// <summary>
    /// A map key's text: <paramref name="entry"/> of <paramref name="column"/>'s <see cref="XeColumnShape.Map"/>, the
    /// same text for the same entry of a file, so a listing can keep what it writes of it.
    /// </summary>
    void MapText(XeColumnShape column, int entry);

    /// <summary>A GUID, with the sequence number of an activity id (null for a plain GUID).</summary>
    void Guid(XeColumnShape column, Guid value, uint? sequence);

    /// <summary>Binary data, or the bytes of a value this reader cannot read as its type: displayed as <c>0x</c> and hexadecimal.</summary>
    void Binary(XeColumnShape column, ReadOnlySpan<byte> bytes);

    void End();

    void Abandon();
}
