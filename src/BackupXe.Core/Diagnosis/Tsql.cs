using System.Globalization;

namespace BackupXe.Core.Diagnosis;

/// <summary>Quoting for the T-SQL a recommendation shows: names in brackets, strings as N'' literals.</summary>
internal static class Tsql
{
    /// <summary>Stands for the database when the input did not name it; fails loudly if run unedited.</summary>
    public const string UnknownDatabase = "<database>";

    /// <summary>Stands for the backup file when the input did not name the devices.</summary>
    public const string UnknownDevice = "<backup file>";

    public static string Name(string? name) => "[" + (name ?? UnknownDatabase).Replace("]", "]]", StringComparison.Ordinal) + "]";

    public static string Literal(string text) => "N'" + text.Replace("'", "''", StringComparison.Ordinal) + "'";

    public static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>"DISK = N'..'" or, for Azure blob storage and S3-compatible storage, "URL = N'..'".</summary>
    public static string Device(string path) =>
        (path.StartsWith("https://", StringComparison.OrdinalIgnoreCase) || path.StartsWith("http://", StringComparison.OrdinalIgnoreCase)
            || path.StartsWith("s3://", StringComparison.OrdinalIgnoreCase)
            ? "URL = "
            : "DISK = ") + Literal(path);

    /// <summary>
    /// D:\b\x.bak -> D:\b\x_1.bak, D:\b\x_2.bak ... (Windows paths whatever the host OS). A path that is
    /// already a stripe (x_1.bak) loses its number first, so stripes do not become x_1_1.bak.
    /// </summary>
    public static IReadOnlyList<string> StripePaths(string path, int count, bool alreadyStriped)
    {
        var folderEnd = Math.Max(path.LastIndexOf('\\'), path.LastIndexOf('/'));
        var dot = path.LastIndexOf('.');
        var (stem, extension) = dot > folderEnd + 1 ? (path[..dot], path[dot..]) : (path, "");
        var underscore = stem.LastIndexOf('_');
        if (alreadyStriped && underscore > folderEnd + 1 && underscore < stem.Length - 1 && stem[(underscore + 1)..].All(char.IsAsciiDigit))
        {
            stem = stem[..underscore];
        }

        return Enumerable.Range(1, count)
            .Select(i => string.Create(CultureInfo.InvariantCulture, $"{stem}_{i}{extension}"))
            .ToList();
    }
}
