using System.Text;

namespace BackupXe.Core.Tuning;

/// <summary>
/// What the DBA runs on the server to remove the trial files a tune kept: one PowerShell Remove-Item on Windows, one
/// rm on Linux, every path quoted literally (no wildcard, no expansion), so nothing but the listed files can go.
/// </summary>
public static class TrialFileCleanup
{
    /// <summary>
    /// What the files may hold in all: per media set, the largest bound of its files (the files of one backup share one
    /// backup's bytes), summed over the media sets; null when one is unknown.
    /// </summary>
    public static long? TotalBytesAtMost(IReadOnlyList<KeptTrialFile> files)
    {
        ArgumentNullException.ThrowIfNull(files);
        return files.All(f => f.BytesAtMost is not null)
            ? files.GroupBy(f => f.MediaName ?? f.Path, StringComparer.Ordinal).Sum(set => set.Max(f => f.BytesAtMost!.Value))
            : null;
    }

    /// <summary>True when the kept files are blobs (a tune to URL): no command on the server removes them.</summary>
    public static bool AreBlobs(IReadOnlyList<KeptTrialFile> files)
    {
        ArgumentNullException.ThrowIfNull(files);
        return files.Count > 0 && files.All(f => UrlTarget.LooksLikeUrl(f.Path));
    }

    public static string Command(IReadOnlyList<KeptTrialFile> files, bool linux)
    {
        ArgumentNullException.ThrowIfNull(files);
        var command = new StringBuilder();
        if (linux)
        {
            // Single quotes take everything literally in sh; a quote inside closes, escapes and reopens.
            command.Append("rm --");
            foreach (var file in files)
            {
                command.Append(" '").Append(file.Path.Replace("'", "'\\''", StringComparison.Ordinal)).Append('\'');
            }
        }
        else
        {
            // -LiteralPath: no wildcard matching; inside PowerShell single quotes only a doubled quote is special.
            command.Append("Remove-Item -LiteralPath ");
            command.AppendJoin(", ", files.Select(f => "'" + f.Path.Replace("'", "''", StringComparison.Ordinal) + "'"));
        }

        return command.ToString();
    }
}
