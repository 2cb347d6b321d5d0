using System.Collections.Immutable;
using BackupXe.Sources.BackupLists;
using BackupXe.Sources.ClientOutput;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Formats;
using BackupXe.Sources.OlaOutput;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeXml;

namespace BackupXe.Sources;

/// <summary>
/// Every input format BackupXe reads, beside the sources that open them: Formats holds only what every format shares,
/// so that no format's folder and this list depend on each other. Adding a format is adding its folder and one line
/// here; detection, opening, the CLI's help and docs/input-formats.md all follow this table.
/// </summary>
internal static class InputFormats
{
    /// <summary>In order of precedence when two formats match equally.</summary>
    public static ImmutableArray<IInputFormat> All { get; } =
    [
        new XelFormat(),
        new XeXmlFormat(),
        new ErrorlogFormat(),
        new OlaOutputFormat(),
        new ClientOutputFormat(),
        new DbaBackupHistoryFormat(),
        new DbaBackupObjectsFormat(),
        new RestoreHeaderOnlyFormat(),
    ];

    /// <summary>The format that matches <paramref name="prefix"/> most strongly, or null.</summary>
    public static (IInputFormat Format, FormatMatch Match)? Recognise(InputPrefix prefix)
    {
        (IInputFormat, FormatMatch)? best = null;
        foreach (var format in All)
        {
            var match = format.Recognise(prefix);
            if (match.IsMatch && (best is null || match.Strength > best.Value.Item2.Strength))
            {
                best = (format, match);
            }
        }

        return best;
    }

    /// <summary>"xel, xe-xml or errorlog": the names, for messages.</summary>
    public static string Names()
    {
        var names = All.Select(format => format.Name).ToList();
        return names.Count == 1 ? names[0] : $"{string.Join(", ", names[..^1])} or {names[^1]}";
    }
}
