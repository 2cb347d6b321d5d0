using Xunit;

namespace BackupXe.Tests.Support;

/// <summary>
/// "A comes before B", failing when either is missing: comparing two IndexOf results alone passes when the first
/// is absent (-1 is before everything).
/// </summary>
internal static class Order
{
    public static void Before(string text, string first, string then)
    {
        var at = text.IndexOf(first, StringComparison.Ordinal);
        Assert.True(at >= 0, $"\"{first}\" is missing");
        var next = text.IndexOf(then, StringComparison.Ordinal);
        Assert.True(next >= 0, $"\"{then}\" is missing");
        Assert.True(at < next, $"\"{first}\" (at {at}) is not before \"{then}\" (at {next})");
    }

    public static void Before<T>(IList<T> items, T first, T then)
    {
        Assert.Contains(first, items);
        Assert.Contains(then, items);
        Assert.True(items.IndexOf(first) < items.IndexOf(then), $"{first} is not before {then}");
    }
}
