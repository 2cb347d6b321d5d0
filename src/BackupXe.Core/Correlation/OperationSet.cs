namespace BackupXe.Core.Correlation;

/// <summary>
/// Operations in the order they were added, with an index by session: "the latest one of session 61" is a
/// dictionary lookup, not a scan, so 100,000 concurrent sessions correlate in linear time. Lookups that name no
/// session walk from the newest, as they did over a list.
/// </summary>
internal sealed class OperationSet
{
    private readonly SortedSet<BackupOperation> _ordered = new(Comparer<BackupOperation>.Create((a, b) => a.Sequence.CompareTo(b.Sequence)));
    private readonly Dictionary<int, List<BackupOperation>> _bySession = [];

    // InOrder as an array, made again only after the set changes: a wait without session_id is compared with every
    // ended operation, and enumerating the sorted set for it would allocate a traversal stack per wait.
    private BackupOperation[]? _inOrder;

    // Asked of every event (is the correlator idle?) and every wait: a field, where the sorted set's Count checks its version.
    private int _count;

    // The list of the session last looked up: a backup's waits and messages come from a few sessions in runs.
    private int _lastSession;
    private List<BackupOperation>? _lastSessionList;

    public int Count => _count;

    /// <summary>Oldest first.</summary>
    public IEnumerable<BackupOperation> InOrder => _ordered;

    /// <summary>Oldest first, as an array valid until the set next changes.</summary>
    public ReadOnlySpan<BackupOperation> Ordered => _inOrder ??= [.. _ordered];

    public BackupOperation? Only => _count == 1 ? _ordered.Min : null;

    public void Add(BackupOperation operation)
    {
        // The owner numbers operations as it creates them; an unnumbered one would collide in the ordered set.
        if (operation.Sequence == 0)
        {
            throw new InvalidOperationException("An operation must be numbered by its correlator before it is added.");
        }

        if (_ordered.Add(operation))
        {
            _count++;
        }

        _inOrder = null;
        if (operation.SessionId is { } session)
        {
            if (!_bySession.TryGetValue(session, out var list))
            {
                list = [];
                _bySession.Add(session, list);
                _lastSessionList = null;
            }

            list.Add(operation);
        }
    }

    public bool Remove(BackupOperation operation)
    {
        if (!_ordered.Remove(operation))
        {
            return false;
        }

        _count--;
        _inOrder = null;

        if (operation.SessionId is { } session && _bySession.TryGetValue(session, out var list))
        {
            list.Remove(operation);
            if (list.Count == 0)
            {
                _bySession.Remove(session);
                _lastSessionList = null;
            }
        }

        return true;
    }

    public void Clear()
    {
        _ordered.Clear();
        _count = 0;
        _inOrder = null;
        _bySession.Clear();
        _lastSessionList = null;
    }

    /// <summary>The session's operations, oldest first (a handful at most: a session runs one at a time).</summary>
    public IReadOnlyList<BackupOperation> OfSession(int session) =>
        _bySession.TryGetValue(session, out var list) ? list : [];

    /// <summary>The newest operation of <paramref name="session"/> that <paramref name="match"/> accepts.</summary>
    public BackupOperation? LastOfSession(int session, Func<BackupOperation, bool> match)
        => LastOfSession(session, match, static (operation, match) => match(operation));

    /// <summary>
    /// The same, with what the test needs passed in: a static lambda is allocated once, while one that captures
    /// the event's database or wait is allocated on every event (a million times for a million ERRORLOG lines).
    /// </summary>
    public BackupOperation? LastOfSession<TState>(int session, TState state, Func<BackupOperation, TState, bool> match)
    {
        List<BackupOperation>? list;
        if (session == _lastSession && _lastSessionList is not null)
        {
            list = _lastSessionList;
        }
        else if (_bySession.TryGetValue(session, out list))
        {
            (_lastSession, _lastSessionList) = (session, list);
        }
        else
        {
            return null;
        }

        for (var i = list.Count - 1; i >= 0; i--)
        {
            if (match(list[i], state))
            {
                return list[i];
            }
        }

        return null;
    }

    /// <summary>The newest operation <paramref name="match"/> accepts, searching from the newest.</summary>
    public BackupOperation? Last(Func<BackupOperation, bool> match)
    {
        // Over the array, not SortedSet.Reverse(): a trace message without session_id is matched by database against
        // every open operation, and walking the tree backwards allocates a traversal stack per call (docs/performance.md).
        var ordered = Ordered;
        for (var i = ordered.Length - 1; i >= 0; i--)
        {
            if (match(ordered[i]))
            {
                return ordered[i];
            }
        }

        return null;
    }
}
