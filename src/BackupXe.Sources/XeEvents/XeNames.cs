namespace BackupXe.Sources.XeEvents;

/// <summary>
/// The distinct data field names and actions (package and name) the events of some inputs carry: what
/// <c>backupxe events --format csv</c> makes its columns of before the first row. Bounded by
/// <see cref="MaxNames"/>, so a hostile input cannot make it grow with its events.
/// </summary>
public sealed class XeNames
{
    /// <summary>More distinct names than any real session declares (a few dozen) by far; past it the input is refused.</summary>
    public const int MaxNames = 4096;

    private readonly HashSet<string> _fields = new(StringComparer.Ordinal);
    private readonly HashSet<(string Package, string Name)> _actions = [];

    /// <summary>Whether more than <see cref="MaxNames"/> names were offered; the names past it were not kept.</summary>
    public bool Overflowed { get; private set; }

    public int Count => _fields.Count + _actions.Count;

    public void AddField(string? name)
    {
        if (name is not null && !_fields.Contains(name) && Room())
        {
            _fields.Add(name);
        }
    }

    public void AddAction(string? package, string? name)
    {
        if (name is not null && !_actions.Contains((package ?? string.Empty, name)) && Room())
        {
            _actions.Add((package ?? string.Empty, name));
        }
    }

    /// <summary>The field names in ordinal order: the same columns in the same order whatever order the inputs came in.</summary>
    public IReadOnlyList<string> Fields => [.. _fields.Order(StringComparer.Ordinal)];

    /// <summary>The actions in ordinal order of package, then name.</summary>
    public IReadOnlyList<(string Package, string Name)> Actions =>
        [.. _actions.OrderBy(a => a.Package, StringComparer.Ordinal).ThenBy(a => a.Name, StringComparer.Ordinal)];

    private bool Room()
    {
        if (Count < MaxNames)
        {
            return true;
        }

        Overflowed = true;
        return false;
    }
}
