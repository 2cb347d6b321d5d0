using System.Globalization;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>
/// A listing that describes each event it is told as <see cref="XelParallelDecodingTests"/> describes a whole
/// <see cref="XeEvent"/> (every value by its <see cref="XeValue.Display"/>): what is told value by value, straight from
/// the bytes, can then be compared with the events decoded whole.
/// </summary>
internal sealed class DescribedListing : IXeEventListing
{
    private readonly List<string> _fields = [];
    private readonly List<string> _actions = [];
    private string _head = string.Empty;

    public List<string> Events { get; } = [];

    public bool Begin(XeEventShape shape, DateTime timestamp)
    {
        _fields.Clear();
        _actions.Clear();
        _head = $"{timestamp:O} {shape.Name} {shape.Package}";
        return true;
    }

    public void Unsigned(XeColumnShape column, ulong value) => Add(column, value.ToString(CultureInfo.InvariantCulture));

    public void Signed(XeColumnShape column, long value) => Add(column, value.ToString(CultureInfo.InvariantCulture));

    public void Boolean(XeColumnShape column, bool value) => Add(column, value ? "true" : "false");

    public void Float(XeColumnShape column, double value) => Add(column, value.ToString(null, CultureInfo.InvariantCulture));

    public void Pointer(XeColumnShape column, ulong value) => Add(column, "0x" + value.ToString("X16", CultureInfo.InvariantCulture));

    public void Text(XeColumnShape column, ReadOnlySpan<char> text) => Add(column, text.ToString());

    public void MapText(XeColumnShape column, int entry) => Add(column, column.Map!.Texts[entry]);

    public void Guid(XeColumnShape column, Guid value, uint? sequence) =>
        Add(column, value.ToString("D").ToUpperInvariant() + (sequence is { } next ? "-" + next.ToString(CultureInfo.InvariantCulture) : string.Empty));

    public void Binary(XeColumnShape column, ReadOnlySpan<byte> bytes) => Add(column, "0x" + Convert.ToHexString(bytes));

    public void End() => Events.Add($"{_head} {string.Join(";", _fields)} {string.Join(";", _actions)}");

    public void Abandon()
    {
    }

    private void Add(XeColumnShape column, string display) => (column.IsAction ? _actions : _fields).Add($"{column.Name}={display}");
}
