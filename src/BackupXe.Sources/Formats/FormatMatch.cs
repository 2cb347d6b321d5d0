using System.Text;

namespace BackupXe.Sources.Formats;

/// <summary>How strongly a prefix points at a format. The strongest match wins; ties go to the earlier table entry.</summary>
public enum MatchStrength
{
    None,

    /// <summary>Some lines or elements look right, but the start of the input does not (e.g. damage near the top).</summary>
    Weak,

    /// <summary>The input starts the way the format always starts.</summary>
    Strong,

    /// <summary>A magic number: nothing else can look like this.</summary>
    Certain,
}

/// <summary>How well an input's first bytes match a format, and the text encoding they were found in.</summary>
/// <param name="TextEncoding">For text formats, the encoding the prefix was found in (used when there is no BOM).</param>
public readonly record struct FormatMatch(MatchStrength Strength, Encoding? TextEncoding = null)
{
    public static FormatMatch None => default;

    public bool IsMatch => Strength > MatchStrength.None;
}
