namespace BackupXe.Cli.Rendering;

/// <summary>How many events of each name the inputs held (a capture has a handful of names), and how many were listed.</summary>
internal sealed class EventNames
{
    private readonly Dictionary<string, long> _counts = new(StringComparer.Ordinal);

    public long Listed { get; private set; }

    public bool Any => _counts.Count > 0;

    public void Add(string name, bool listed) => Add(name, 1, listed ? 1 : 0);

    /// <summary>Adds <paramref name="count"/> events of one name, <paramref name="listed"/> of them listed.</summary>
    public void Add(string name, long count, long listed)
    {
        _counts[name] = _counts.GetValueOrDefault(name) + count;
        Listed += listed;
    }

    /// <summary>Adds the counts of a part of the inputs, counted apart (on another thread).</summary>
    public void Add(EventNames part)
    {
        foreach (var (name, count) in part._counts)
        {
            _counts[name] = _counts.GetValueOrDefault(name) + count;
        }

        Listed += part.Listed;
    }

    public void Clear()
    {
        _counts.Clear();
        Listed = 0;
    }

    /// <summary>"wait_info (7,001), backup_restore_progress_trace (149)": most frequent first.</summary>
    public string Describe() => string.Join(", ", _counts
        .OrderByDescending(pair => pair.Value).ThenBy(pair => pair.Key, StringComparer.Ordinal)
        .Select(pair => string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{Core.Rendering.TerminalText.Line(pair.Key)} ({pair.Value:N0})")));
}
