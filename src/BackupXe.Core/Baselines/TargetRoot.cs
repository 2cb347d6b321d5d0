using BackupXe.Core.Parsing;

namespace BackupXe.Core.Baselines;

/// <summary>
/// Where a backup writes, coarse enough that two backups sharing it compete for the same bandwidth: the share
/// (<c>\\nas01\backups</c>), the volume (<c>X:</c>, a mount's first folder <c>/mnt/backups</c>), the URL's
/// account and container, <c>NUL</c>, or the tape drive.
/// </summary>
internal static class TargetRoot
{
    /// <summary>The root of one device path, case-folded so that two spellings of a share compare equal; null for no path.</summary>
    public static string? Of(string? path)
    {
        if (string.IsNullOrWhiteSpace(path))
        {
            return null;
        }

        var p = path.Trim();
        if (p.Equals("NUL", StringComparison.OrdinalIgnoreCase) || p.Equals("/dev/null", StringComparison.Ordinal))
        {
            return "NUL";
        }

        if (Uri.TryCreate(p, UriKind.Absolute, out var uri) && uri.Scheme is "https" or "http" or "s3")
        {
            // The container (Azure) or bucket (S3 path style) is the first segment; the host names the account.
            var first = uri.AbsolutePath.Split('/', StringSplitOptions.RemoveEmptyEntries).FirstOrDefault();
            return $"{uri.Scheme}://{uri.Host}/{first}".TrimEnd('/').ToLowerInvariant();
        }

        if (p.StartsWith(@"\\.\", StringComparison.Ordinal))
        {
            // \\.\TAPE0: a local device, the drive itself.
            return p.ToUpperInvariant();
        }

        if (p.StartsWith(@"\\", StringComparison.Ordinal) || p.StartsWith("//", StringComparison.Ordinal))
        {
            var parts = p[2..].Split(['\\', '/'], StringSplitOptions.RemoveEmptyEntries);
            return parts.Length >= 2 ? $@"\\{parts[0]}\{parts[1]}".ToLowerInvariant() : $@"\\{string.Join('\\', parts)}".ToLowerInvariant();
        }

        if (p.Length >= 2 && char.IsLetter(p[0]) && p[1] == ':')
        {
            return $"{char.ToUpperInvariant(p[0])}:";
        }

        if (p.StartsWith('/'))
        {
            var parts = p.Split('/', StringSplitOptions.RemoveEmptyEntries);
            return parts.Length >= 2 ? $"/{parts[0]}/{parts[1]}" : "/";
        }

        // A logical device name (sp_addumpdevice): the name is all that is known.
        return p.ToUpperInvariant();
    }

    /// <summary>The kind of target a series is kept apart by: disk, url, nul, tape, virtual or logical; null with no device.</summary>
    public static string? TypeOf(IReadOnlyList<BackupDevice> devices)
    {
        var types = devices.Where(d => !d.IsMirror).Select(TypeOf).Distinct().Order(StringComparer.Ordinal).ToList();
        return types.Count == 0 ? null : string.Join('+', types);
    }

    private static string TypeOf(BackupDevice device) => device.Kind switch
    {
        DeviceKind.Url => "url",
        DeviceKind.Tape => "tape",
        DeviceKind.Virtual => "virtual",
        DeviceKind.Logical => "logical",
        _ when Of(device.Path) == "NUL" => "nul",
        _ when device.Path?.StartsWith(@"\\.\TAPE", StringComparison.OrdinalIgnoreCase) == true => "tape",
        _ => "disk",
    };
}
