using System.Globalization;

namespace BackupXe.Sources.XeEvents;

/// <summary>
/// One Extended Events event exactly as the source holds it, every field and action included: what
/// <c>backupxe events</c> lists, before BackupXe keeps only the fields it analyses
/// (<see cref="XeEventMapping"/>).
/// </summary>
/// <param name="Timestamp">UTC with 100 ns precision for XE sources; an ERRORLOG line keeps its zoneless local time.</param>
public sealed record XeEvent(string Name, string Package, DateTime Timestamp, IReadOnlyList<XeValue> Fields, IReadOnlyList<XeValue> Actions);

/// <summary>One data field or action of an <see cref="XeEvent"/>.</summary>
/// <param name="Package">The action's package; for a data field, the package of its event.</param>
/// <param name="Type">The XE type (or map) name, e.g. <c>uint64</c>, <c>unicode_string</c>, <c>wait_types</c>.</param>
/// <param name="Value">
/// The decoded value: <see cref="long"/> (signed integers), <see cref="ulong"/> (unsigned integers, pointers, map
/// keys), <see cref="bool"/>, <see cref="double"/>, <see cref="string"/>, <see cref="Guid"/>, <see cref="XeActivityId"/>
/// or <see cref="byte"/>[] (binary data, and the raw bytes of a type this reader does not know). XE XML gives the
/// <c>&lt;value&gt;</c> text as a string.
/// </param>
/// <param name="Text">A map value's name (the XML's <c>&lt;text&gt;</c>); null when the field is no map or the key is not in the map.</param>
public sealed record XeValue(string Name, string Package, string Type, object? Value, string? Text = null)
{
    /// <summary>The value as a user reads it: a map's name, numbers in invariant culture, pointers and bytes in hex.</summary>
    public string Display => Text ?? Format(Type, Value);

    public static string Format(string type, object? value) => value switch
    {
        null => string.Empty,
        string s => s,
        bool b => b ? "true" : "false",
        ulong u when type == "ptr" => "0x" + u.ToString("X16", CultureInfo.InvariantCulture),
        byte[] bytes => "0x" + Convert.ToHexString(bytes),
        Guid g => g.ToString("D").ToUpperInvariant(),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };
}

/// <summary>
/// An <c>activity_id</c> / <c>activity_id_xfer</c> value: a GUID and a sequence number (20 bytes in a .xel),
/// shown as <c>GUID-seq</c> the way SQL Server's XML renders it (docs/xel-format.md section 6).
/// </summary>
internal readonly record struct XeActivityId(Guid Id, uint Sequence)
{
    public override string ToString() =>
        string.Create(CultureInfo.InvariantCulture, $"{Id.ToString("D").ToUpperInvariant()}-{Sequence}");
}
