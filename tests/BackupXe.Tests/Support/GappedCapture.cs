using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace BackupXe.Tests.Support;

/// <summary>
/// A genuine capture with the time after one of its events set to a given gap: every later event moves by the same
/// amount, so durations, waits and order stay as recorded and only the gap changes.
/// </summary>
internal static partial class GappedCapture
{
    /// <summary>An XE XML file whose first event with <paramref name="message"/> in its trace_message is followed by <paramref name="gap"/>.</summary>
    public static string XeXml(string sample, string message, TimeSpan gap, string directory)
    {
        var document = XDocument.Load(sample);
        var events = document.Root!.Elements("event").ToList();
        var index = events.FindIndex(e => e.Elements("data").Any(d => (string?)d.Attribute("name") == "trace_message" && d.Value.Contains(message, StringComparison.Ordinal)));
        if (index < 0 || index + 1 >= events.Count)
        {
            throw new ArgumentException($"{sample} has no event after one saying '{message}'.", nameof(message));
        }

        var shift = gap - (Stamp(events[index + 1]) - Stamp(events[index]));
        foreach (var later in events.Skip(index + 1))
        {
            later.SetAttributeValue("timestamp", (Stamp(later) + shift).ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture));
        }

        var path = Path.Combine(directory, Path.GetFileNameWithoutExtension(sample) + "-gap.xml");
        document.Save(path);
        return path;
    }

    /// <summary>An ERRORLOG (UTF-16, as SQL Server writes it) whose first line with <paramref name="message"/> is followed by <paramref name="gap"/>.</summary>
    public static string Errorlog(string sample, string message, TimeSpan gap, string directory)
    {
        var lines = File.ReadAllLines(sample, Encoding.Unicode);
        var index = Array.FindIndex(lines, line => line.Contains(message, StringComparison.Ordinal));
        if (index < 0 || index + 1 >= lines.Length)
        {
            throw new ArgumentException($"{sample} has no line after one saying '{message}'.", nameof(message));
        }

        var shift = gap - (Stamp(lines[index + 1]) - Stamp(lines[index]));
        for (var i = index + 1; i < lines.Length; i++)
        {
            var stamp = Stamp(lines[i]) + shift;
            lines[i] = stamp.ToString("yyyy-MM-dd HH:mm:ss.ff", CultureInfo.InvariantCulture) + lines[i][22..];
        }

        var path = Path.Combine(directory, Path.GetFileNameWithoutExtension(sample) + "-gap.log");
        File.WriteAllLines(path, lines, Encoding.Unicode);
        return path;
    }

    private static DateTime Stamp(XElement e) => DateTime.Parse((string)e.Attribute("timestamp")!, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal);

    private static DateTime Stamp(string line) => ErrorlogStamp().Match(line) is { Success: true } m
        ? DateTime.ParseExact(m.Value, "yyyy-MM-dd HH:mm:ss.ff", CultureInfo.InvariantCulture)
        : throw new FormatException($"No ERRORLOG timestamp at the start of '{line}'.");

    [GeneratedRegex(@"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d\d")]
    private static partial Regex ErrorlogStamp();
}
