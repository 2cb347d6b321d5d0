using System.Buffers;
namespace BackupXe.Sources;

/// <summary>
/// A command-line input that names several files with <c>*</c> or <c>?</c> in its file name, such as the
/// rollover set <c>backupxe_0_*.xel</c>. Expanded here rather than by the shell so that Windows users, whose
/// shell does not expand, and quoted patterns work the same.
/// </summary>
public static class InputPattern
{
    private static readonly SearchValues<char> Wildcards = SearchValues.Create("*?");

    public static bool IsPattern(string path) => Path.GetFileName(path.AsSpan()).IndexOfAny(Wildcards) >= 0;

    /// <summary>
    /// The files matching <paramref name="path"/>, in file order: names compared with their digit runs as numbers,
    /// so that <c>x_0_9.xel</c> comes before <c>x_0_10.xel</c> and event_file rollovers come in the order written.
    /// Empty when nothing matches or the folder does not exist. Only the file name may hold wildcards.
    /// </summary>
    public static IReadOnlyList<string> Expand(string path)
    {
        var directory = Path.GetDirectoryName(path);
        var folder = string.IsNullOrEmpty(directory) ? "." : directory;
        if (!Directory.Exists(folder))
        {
            return [];
        }

        var files = Directory.EnumerateFiles(folder, Path.GetFileName(path), new EnumerationOptions { MatchCasing = MatchCasing.PlatformDefault })
            .Select(f => string.IsNullOrEmpty(directory) ? Path.GetFileName(f) : f)
            .ToList();
        files.Sort(FileOrder.Instance);
        return files;
    }

    /// <summary>Orders names with their digit runs compared as numbers.</summary>
    private sealed class FileOrder : IComparer<string>
    {
        public static readonly FileOrder Instance = new();

        public int Compare(string? x, string? y)
        {
            var a = x.AsSpan();
            var b = y.AsSpan();
            while (!a.IsEmpty && !b.IsEmpty)
            {
                if (char.IsAsciiDigit(a[0]) && char.IsAsciiDigit(b[0]))
                {
                    var aDigits = Digits(a).TrimStart('0');
                    var bDigits = Digits(b).TrimStart('0');
                    var byNumber = aDigits.Length != bDigits.Length ? aDigits.Length.CompareTo(bDigits.Length) : aDigits.SequenceCompareTo(bDigits);
                    if (byNumber != 0)
                    {
                        return byNumber;
                    }

                    a = a[Digits(a).Length..];
                    b = b[Digits(b).Length..];
                    continue;
                }

                var byChar = a[0].CompareTo(b[0]);
                if (byChar != 0)
                {
                    return byChar;
                }

                a = a[1..];
                b = b[1..];
            }

            return a.Length.CompareTo(b.Length);
        }

        private static ReadOnlySpan<char> Digits(ReadOnlySpan<char> s)
        {
            var end = 0;
            while (end < s.Length && char.IsAsciiDigit(s[end]))
            {
                end++;
            }

            return s[..end];
        }
    }
}
