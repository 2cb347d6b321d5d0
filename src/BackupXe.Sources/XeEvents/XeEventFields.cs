using BackupXe.Core.Events;

namespace BackupXe.Sources.XeEvents;

/// <summary>The data and action names BackupXe reads; every other field is skipped unread.</summary>
internal enum XeField
{
    None,
    OperationType,
    TraceLevel,
    DatabaseName,
    TraceMessage,
    WaitType,
    Opcode,
    Duration,
    SignalDuration,
    DatabaseId,
    Count,
    Increment,
    SessionId,
}

/// <summary>
/// The fields of the event being read. One instance is reused for every event so that a million-event file
/// allocates only the strings it keeps: numbers are kept as numbers (<see cref="XeNumber"/>), and a reader that
/// holds a value as characters (XE XML) hands them over without making a string of them.
/// </summary>
internal sealed class XeEventFields
{
    private XeNumber _operationTypeValue;
    private string? _operationTypeText;
    private XeNumber _opcodeValue;
    private string? _opcodeText;
    private string? _databaseNameValue;
    private string? _databaseNameText;
    private string? _traceMessageValue;
    private string? _traceMessageText;

    public XeNumber TraceLevel { get; private set; }

    public string? DatabaseName => _databaseNameValue ?? _databaseNameText;

    public string? TraceMessage => _traceMessageValue ?? _traceMessageText;

    public string? WaitType { get; private set; }

    public XeNumber Duration { get; private set; }

    public XeNumber SignalDuration { get; private set; }

    public XeNumber DatabaseId { get; private set; }

    public XeNumber Count { get; private set; }

    public XeNumber Increment { get; private set; }

    public XeNumber SessionId { get; private set; }

    /// <summary>The operation_type map: its text when present, else its key (0 Backup, 1 Restore).</summary>
    public OperationKind? OperationKind =>
        _operationTypeText is { } text
            ? text.Equals("Backup", StringComparison.OrdinalIgnoreCase) ? Core.Events.OperationKind.Backup
            : text.Equals("Restore", StringComparison.OrdinalIgnoreCase) ? Core.Events.OperationKind.Restore
            : FromKey(_operationTypeValue)
            : FromKey(_operationTypeValue);

    /// <summary>The event_opcode map says Begin (key 0): the wait has not ended and carries no duration.</summary>
    public bool IsBeginOpcode => IsBegin(_opcodeText, _opcodeValue.IsExactly(0));

    /// <summary>An opcode is Begin by its map text when it has one, else by its key.</summary>
    public static bool IsBegin(string? text, bool keyIsZero) =>
        text is not null ? text.Equals("Begin", StringComparison.OrdinalIgnoreCase) : keyIsZero;

    public static XeField Classify(string? name) => name is null ? XeField.None : Classify(name.AsSpan());

    public static XeField Classify(ReadOnlySpan<char> name) => name switch
    {
        "operation_type" => XeField.OperationType,
        "trace_level" => XeField.TraceLevel,
        "database_name" => XeField.DatabaseName,
        "trace_message" => XeField.TraceMessage,
        "wait_type" => XeField.WaitType,
        "opcode" => XeField.Opcode,
        "duration" => XeField.Duration,
        "signal_duration" => XeField.SignalDuration,
        "database_id" => XeField.DatabaseId,
        "count" => XeField.Count,
        "increment" => XeField.Increment,
        "session_id" => XeField.SessionId,
        _ => XeField.None,
    };

    /// <summary>
    /// Which analysed field an action is. Only <c>session_id</c>: the events BackupXe reads have no such data field,
    /// and the action is the session that raised the event. Every other action keeps its own meaning, which is not
    /// the same-named data field's: the <c>sqlserver.database_name</c> action is the session's current database
    /// (often <c>master</c>), not the database being backed up that the event's own <c>database_name</c> names.
    /// </summary>
    public static XeField ClassifyAction(ReadOnlySpan<char> name) => name is "session_id" ? XeField.SessionId : XeField.None;

    /// <summary>Whether <paramref name="field"/> already holds a value, so that an action never replaces a data field.</summary>
    public bool Holds(XeField field) => field switch
    {
        XeField.SessionId => SessionId.IsPresent,
        _ => false,
    };

    /// <summary>Whether the field's <c>&lt;value&gt;</c> is a number (kept by <see cref="SetNumber"/>) rather than text.</summary>
    public static bool IsNumeric(XeField field) => field is not (XeField.DatabaseName or XeField.TraceMessage or XeField.WaitType);

    /// <summary>Whether the field's <c>&lt;value&gt;</c> is used: a wait type is known by its map name, not its key.</summary>
    public static bool UsesValue(XeField field) => field is not (XeField.WaitType or XeField.None);

    /// <summary>
    /// Whether the field's <c>&lt;text&gt;</c> (a map value's name, or a string written as text) is used; the text of a
    /// plain number is not.
    /// </summary>
    public static bool UsesText(XeField field) =>
        field is XeField.OperationType or XeField.Opcode or XeField.DatabaseName or XeField.TraceMessage or XeField.WaitType;

    public void Clear()
    {
        _operationTypeValue = _opcodeValue = TraceLevel = Duration = SignalDuration = XeNumber.Absent;
        DatabaseId = Count = Increment = SessionId = XeNumber.Absent;
        _operationTypeText = _opcodeText = _databaseNameValue = _databaseNameText = null;
        _traceMessageValue = _traceMessageText = WaitType = null;
    }

    /// <summary>Keeps a field; for a map field <paramref name="text"/> is the name, <paramref name="value"/> the key.</summary>
    public void Set(XeField field, string? value, string? text)
    {
        Begin(field);
        if (value is not null)
        {
            if (IsNumeric(field))
            {
                SetNumber(field, XeNumber.From(value));
            }
            else
            {
                SetValue(field, value);
            }
        }

        if (text is not null)
        {
            SetText(field, text);
        }
    }

    /// <summary>A new occurrence of <paramref name="field"/>: what an earlier one left is forgotten (the last one counts).</summary>
    public void Begin(XeField field)
    {
        switch (field)
        {
            case XeField.OperationType:
                _operationTypeValue = XeNumber.Absent;
                _operationTypeText = null;
                break;
            case XeField.Opcode:
                _opcodeValue = XeNumber.Absent;
                _opcodeText = null;
                break;
            case XeField.DatabaseName:
                _databaseNameValue = _databaseNameText = null;
                break;
            case XeField.TraceMessage:
                _traceMessageValue = _traceMessageText = null;
                break;
            case XeField.WaitType:
                WaitType = null;
                break;
            default:
                SetNumber(field, XeNumber.Absent);
                break;
        }
    }

    /// <summary>The <c>&lt;value&gt;</c> of a numeric field (<see cref="IsNumeric"/>).</summary>
    public void SetNumber(XeField field, XeNumber value)
    {
        switch (field)
        {
            case XeField.OperationType:
                _operationTypeValue = value;
                break;
            case XeField.Opcode:
                _opcodeValue = value;
                break;
            case XeField.TraceLevel:
                TraceLevel = value;
                break;
            case XeField.Duration:
                Duration = value;
                break;
            case XeField.SignalDuration:
                SignalDuration = value;
                break;
            case XeField.DatabaseId:
                DatabaseId = value;
                break;
            case XeField.Count:
                Count = value;
                break;
            case XeField.Increment:
                Increment = value;
                break;
            case XeField.SessionId:
                SessionId = value;
                break;
        }
    }

    /// <summary>
    /// A map field of <see cref="XeField.WaitType"/> or <see cref="XeField.Opcode"/> read as its key and the key's text
    /// (null when the map lacks it): what <see cref="Begin"/>, then <see cref="SetNumber"/> and <see cref="SetText"/> leave.
    /// </summary>
    public void SetMapped(XeField field, ulong key, string? text)
    {
        if (field == XeField.WaitType)
        {
            WaitType = text;
        }
        else if (field == XeField.Opcode)
        {
            _opcodeValue = key <= long.MaxValue ? XeNumber.OfNonNegative((long)key) : XeNumber.Of(key);
            _opcodeText = text;
        }
    }

    /// <summary>The <c>&lt;value&gt;</c> of a text field; a wait type's value is its map key, not used.</summary>
    public void SetValue(XeField field, string value)
    {
        switch (field)
        {
            case XeField.DatabaseName:
                _databaseNameValue = value;
                break;
            case XeField.TraceMessage:
                _traceMessageValue = value;
                break;
        }
    }

    /// <summary>The <c>&lt;text&gt;</c> of a field that uses it (<see cref="UsesText"/>).</summary>
    public void SetText(XeField field, string text)
    {
        switch (field)
        {
            case XeField.OperationType:
                _operationTypeText = text;
                break;
            case XeField.Opcode:
                _opcodeText = text;
                break;
            case XeField.DatabaseName:
                _databaseNameText = text;
                break;
            case XeField.TraceMessage:
                _traceMessageText = text;
                break;
            case XeField.WaitType:
                WaitType = text;
                break;
        }
    }

    private static OperationKind? FromKey(XeNumber key) =>
        key.IsExactly(0) ? Core.Events.OperationKind.Backup
        : key.IsExactly(1) ? Core.Events.OperationKind.Restore
        : null;
}
