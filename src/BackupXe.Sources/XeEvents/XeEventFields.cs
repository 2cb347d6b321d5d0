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
/// allocates only the strings it keeps.
/// </summary>
internal sealed class XeEventFields
{
    private string? _operationTypeValue;
    private string? _operationTypeText;
    private string? _opcodeValue;
    private string? _opcodeText;

    public string? TraceLevel { get; private set; }

    public string? DatabaseName { get; private set; }

    public string? TraceMessage { get; private set; }

    public string? WaitType { get; private set; }

    public string? Duration { get; private set; }

    public string? SignalDuration { get; private set; }

    public string? DatabaseId { get; private set; }

    public string? Count { get; private set; }

    public string? Increment { get; private set; }

    public string? SessionId { get; private set; }

    /// <summary>The operation_type map: its text when present, else its key (0 Backup, 1 Restore).</summary>
    public OperationKind? OperationKind =>
        _operationTypeText is { } text
            ? text.Equals("Backup", StringComparison.OrdinalIgnoreCase) ? Core.Events.OperationKind.Backup
            : text.Equals("Restore", StringComparison.OrdinalIgnoreCase) ? Core.Events.OperationKind.Restore
            : FromKey(_operationTypeValue)
            : FromKey(_operationTypeValue);

    /// <summary>The event_opcode map says Begin (key 0): the wait has not ended and carries no duration.</summary>
    public bool IsBeginOpcode =>
        _opcodeText is { } text ? text.Equals("Begin", StringComparison.OrdinalIgnoreCase) : _opcodeValue == "0";

    public static XeField Classify(string? name) => name switch
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

    public void Clear()
    {
        _operationTypeValue = _operationTypeText = _opcodeValue = _opcodeText = null;
        TraceLevel = DatabaseName = TraceMessage = WaitType = Duration = SignalDuration = null;
        DatabaseId = Count = Increment = SessionId = null;
    }

    /// <summary>Keeps a field; for a map field <paramref name="text"/> is the name, <paramref name="value"/> the key.</summary>
    public void Set(XeField field, string? value, string? text)
    {
        switch (field)
        {
            case XeField.OperationType:
                _operationTypeValue = value;
                _operationTypeText = text;
                break;
            case XeField.Opcode:
                _opcodeValue = value;
                _opcodeText = text;
                break;
            case XeField.TraceLevel:
                TraceLevel = value;
                break;
            case XeField.DatabaseName:
                DatabaseName = value ?? text;
                break;
            case XeField.TraceMessage:
                TraceMessage = value ?? text;
                break;
            case XeField.WaitType:
                WaitType = text;
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

    private static OperationKind? FromKey(string? key) => key switch
    {
        "0" => Core.Events.OperationKind.Backup,
        "1" => Core.Events.OperationKind.Restore,
        _ => null,
    };
}
