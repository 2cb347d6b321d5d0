namespace BackupXe.Core.Correlation;

/// <summary>A file read or zeroed between two messages; either end may be missing from the input.</summary>
public sealed class TimedFile(string path)
{
    public string Path { get; } = path;

    public DateTime? Start { get; set; }

    public DateTime? End { get; set; }

    public long? Pages { get; set; }

    public double? Seconds => Start is { } s && End is { } e && e >= s ? (e - s).TotalSeconds : null;
}

/// <summary>Files in first-seen order, found again by path (case-insensitive: Windows paths).</summary>
public sealed class TimedFiles
{
    private readonly List<TimedFile> _files = [];

    public IReadOnlyList<TimedFile> All => _files;

    public TimedFile Get(string path)
    {
        var file = _files.FindLast(f => string.Equals(f.Path, path, StringComparison.OrdinalIgnoreCase));
        if (file is null)
        {
            file = new TimedFile(path);
            _files.Add(file);
        }

        return file;
    }
}
