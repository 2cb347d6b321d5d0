namespace BackupXe.Sources.XeEvents;

/// <summary>
/// The event classes and actions one file's metadata declares, as a listing names them: the same object for every
/// buffer decoded against that metadata, so a listing can prepare what it writes of each name once.
/// </summary>
public sealed class XeShapes
{
    private readonly List<XeEventShape> _events = [];
    private readonly List<XeColumnShape> _actions = [];
    private readonly List<XeMapShape> _maps = [];

    internal XeShapes()
    {
    }

    public IReadOnlyList<XeEventShape> Events => _events;

    /// <summary>The actions, each at its <see cref="XeColumnShape.Index"/>.</summary>
    public IReadOnlyList<XeColumnShape> Actions => _actions;

    /// <summary>The maps whose texts the fields and actions give, each at its <see cref="XeMapShape.Index"/>.</summary>
    public IReadOnlyList<XeMapShape> Maps => _maps;

    internal XeEventShape AddEvent(string name, string package, IReadOnlyList<XeColumnShape> fields)
    {
        var shape = new XeEventShape(this, _events.Count, name, package, fields);
        _events.Add(shape);
        return shape;
    }

    internal XeMapShape AddMap(IReadOnlyList<string> texts)
    {
        var shape = new XeMapShape(_maps.Count, texts);
        _maps.Add(shape);
        return shape;
    }

    /// <summary>Adds the next action, whose <see cref="XeColumnShape.Index"/> is its place here.</summary>
    internal void AddAction(XeColumnShape shape)
    {
        if (shape.Index != _actions.Count || !shape.IsAction)
        {
            throw new ArgumentException("An action's index is its place among the actions.", nameof(shape));
        }

        _actions.Add(shape);
    }
}

/// <summary>An event class of a file: its name, package and data fields in payload order.</summary>
public sealed class XeEventShape
{
    internal XeEventShape(XeShapes set, int index, string name, string package, IReadOnlyList<XeColumnShape> fields)
    {
        Set = set;
        Index = index;
        Name = name;
        Package = package;
        Fields = fields;
    }

    /// <summary>The metadata the event class belongs to.</summary>
    public XeShapes Set { get; }

    /// <summary>Where it is in <see cref="XeShapes.Events"/>.</summary>
    public int Index { get; }

    public string Name { get; }

    public string Package { get; }

    /// <summary>The data fields, each at its <see cref="XeColumnShape.Index"/>.</summary>
    public IReadOnlyList<XeColumnShape> Fields { get; }
}

/// <summary>A data field of an event class, or an action.</summary>
public sealed class XeColumnShape
{
    internal XeColumnShape(int index, string name, string package, string type, bool isAction, XeMapShape? map = null)
    {
        Map = map;
        Index = index;
        Name = name;
        Package = package;
        Type = type;
        IsAction = isAction;
    }

    /// <summary>Where it is in its event's <see cref="XeEventShape.Fields"/>, or for an action in <see cref="XeShapes.Actions"/>.</summary>
    public int Index { get; }

    public string Name { get; }

    /// <summary>The action's package; for a data field, the package of its event.</summary>
    public string Package { get; }

    /// <summary>The XE type (or map) name, as <see cref="XeValue.Type"/>.</summary>
    public string Type { get; }

    public bool IsAction { get; }

    /// <summary>The map whose texts the value gives (<see cref="IXeEventListing.MapText"/>); null for a value of a type.</summary>
    public XeMapShape? Map { get; }
}

/// <summary>A map of a file's metadata as a listing names its values: each text at its entry's place.</summary>
public sealed class XeMapShape
{
    internal XeMapShape(int index, IReadOnlyList<string> texts)
    {
        Index = index;
        Texts = texts;
    }

    /// <summary>Where it is in <see cref="XeShapes.Maps"/>.</summary>
    public int Index { get; }

    /// <summary>The texts of the map's keys, one per distinct key, in the metadata's order.</summary>
    public IReadOnlyList<string> Texts { get; }
}
