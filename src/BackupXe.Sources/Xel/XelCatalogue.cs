namespace BackupXe.Sources.Xel;

/// <summary>
/// The clock of one file's metadata: event timestamps are ticks of <see cref="TicksPerSecond"/> after
/// <see cref="BaseFileTime"/> (a FILETIME, 100 ns units since 1601, UTC).
/// </summary>
public readonly record struct XelClock(long BaseFileTime, long TicksPerSecond)
{
    public DateTime Base => DateTime.FromFileTimeUtc(BaseFileTime);

    /// <summary>The UTC time of <paramref name="ticks"/>; false when it falls outside what a DateTime can hold.</summary>
    public bool TryToUtc(ulong ticks, out DateTime timestamp)
    {
        timestamp = default;
        if (TicksPerSecond <= 0)
        {
            return false;
        }

        // 128-bit arithmetic: ticks x 10^7 overflows 64 bits for a clock that is not already in 100 ns units.
        var offset = TicksPerSecond == TimeSpan.TicksPerSecond
            ? (Int128)ticks
            : (Int128)ticks * TimeSpan.TicksPerSecond / TicksPerSecond;
        var fileTime = BaseFileTime + offset;
        if (fileTime < 0 || fileTime > MaxFileTime)
        {
            return false;
        }

        timestamp = DateTime.FromFileTimeUtc((long)fileTime);
        return true;
    }

    /// <summary>The ticks that <see cref="TryToUtc"/> turns into <paramref name="timestamp"/> (for writers of test files).</summary>
    public ulong ToTicks(DateTime timestamp) =>
        (ulong)((Int128)(timestamp.ToFileTimeUtc() - BaseFileTime) * TicksPerSecond / TimeSpan.TicksPerSecond);

    private static readonly long MaxFileTime = DateTime.MaxValue.ToFileTimeUtc();
}

/// <summary>One package chunk of a metadata buffer: the package and the objects the session uses from it.</summary>
/// <param name="Id">Object id (0x80000000 | package index).</param>
public sealed record XelPackage(
    uint Id,
    string Name,
    string Description,
    Guid Guid,
    Guid ModuleGuid,
    IReadOnlyList<XelEventClass> Events,
    IReadOnlyList<XelActionClass> Actions,
    IReadOnlyList<XelMap> Maps,
    IReadOnlyList<XelType> Types);

/// <summary>An event's definition: its columns in the order and layout the file gives them.</summary>
/// <param name="FixedDataCount">How many data columns have a fixed size (the file states it).</param>
public sealed record XelEventClass(
    uint Id,
    string Name,
    string Package,
    string Description,
    IReadOnlyList<XelReadOnlyColumn> ReadOnlyColumns,
    IReadOnlyList<XelCustomizableColumn> CustomizableColumns,
    IReadOnlyList<XelDataColumn> DataColumns,
    int FixedDataCount);

/// <summary>A read-only column (UUID, VERSION, CHANNEL, KEYWORD): 16 bytes for a guid_ptr, 8 otherwise.</summary>
public sealed record XelReadOnlyColumn(uint TypeId, string Name, byte[] Value, string Description)
{
    public bool Equals(XelReadOnlyColumn? other) =>
        other is not null && TypeId == other.TypeId && Name == other.Name && Value.AsSpan().SequenceEqual(other.Value) && Description == other.Description;

    public override int GetHashCode() => HashCode.Combine(TypeId, Name);
}

/// <summary>A customizable column (collect_* switches and the like) with its configured and default values.</summary>
public sealed record XelCustomizableColumn(uint TypeId, string Name, ulong Configured, ulong Default, string Description);

/// <summary>A data column: where it sits in the payload and whether a collect_* switch makes it optional.</summary>
public sealed record XelDataColumn(uint TypeId, string Name, ushort PayloadOffset, ushort Flags, string Description);

/// <summary>An action's definition.</summary>
public sealed record XelActionClass(uint Id, string Name, string Package, string Description, uint TypeId);

/// <summary>A map: its key width in event payloads and its entries, in stored order.</summary>
public sealed record XelMap(uint Id, string Name, string Package, string Description, byte KeySize, IReadOnlyList<KeyValuePair<uint, string>> Entries);

/// <summary>A type: its name and its size in bytes (0 = variable length).</summary>
public sealed record XelType(uint Id, string Name, string Package, string Description, byte Size);

/// <summary>
/// Everything one file's metadata says: its packages with their events, actions, maps and types, keyed across
/// chunks by full object id (sqlserver events use package0 types, for instance), and the clock.
/// </summary>
public sealed class XelCatalogue
{
    private readonly List<XelPackage> _packages = [];
    private readonly Dictionary<uint, XelEventClass> _events = [];
    private readonly Dictionary<uint, XelActionClass> _actions = [];
    private readonly Dictionary<uint, XelMap> _maps = [];
    private readonly Dictionary<uint, XelType> _types = [];

    /// <summary>The session/file GUID that every chunk and event buffer carries.</summary>
    public Guid SessionGuid { get; internal set; }

    public XelClock Clock { get; internal set; }

    public IReadOnlyList<XelPackage> Packages => _packages;

    public IReadOnlyDictionary<uint, XelEventClass> Events => _events;

    public IReadOnlyDictionary<uint, XelActionClass> Actions => _actions;

    public IReadOnlyDictionary<uint, XelMap> Maps => _maps;

    public IReadOnlyDictionary<uint, XelType> Types => _types;

    internal void Add(XelPackage package)
    {
        // A repeated metadata buffer restates the same package: the latest one wins, as for the clock.
        _packages.RemoveAll(p => p.Id == package.Id);
        _packages.Add(package);
        foreach (var item in package.Events)
        {
            _events[item.Id] = item;
        }

        foreach (var item in package.Actions)
        {
            _actions[item.Id] = item;
        }

        foreach (var item in package.Maps)
        {
            _maps[item.Id] = item;
        }

        foreach (var item in package.Types)
        {
            _types[item.Id] = item;
        }
    }

    /// <summary>The type or map name behind a type id, for messages and listings.</summary>
    public string TypeName(uint typeId) =>
        _types.TryGetValue(typeId, out var type) ? type.Name
        : _maps.TryGetValue(typeId, out var map) ? map.Name
        : $"0x{typeId:X8}";
}
