using System.Globalization;
using System.Security;
using System.Text;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Testing.Xel;

/// <summary>
/// BUILT, NOT CAPTURED: the metadata a BackupXe capture session would write, made from the rules of docs/xel-format.md
/// (no genuine .xel with backup or wait events exists anywhere we could search). Object ids follow the observed id
/// structure; the sqlos GUID, map keys and key widths are invented and labelled so. Map key widths are deliberately
/// varied (1, 2 and 4 bytes) and sqlos is a third package chunk whose events use another chunk's action and types.
/// </summary>
internal static class BuiltBackupCatalogue
{
    public const uint Uint8 = 0x60000800, Uint16 = 0x60000C00, Uint32 = 0x60001000, Uint64 = 0x60002000;
    public const uint Ptr = 0x60003000, UnicodeString = 0x60004000, GuidPtr = 0x60005000;
    public const uint WaitTypes = 0x30000801, EventOpcode = 0x30000C01, OperationType = 0x30007002, TraceLevel = 0x30007402;

    /// <summary>Wait names and the (invented) keys this build's wait_types map gives them.</summary>
    public static readonly IReadOnlyList<KeyValuePair<uint, string>> WaitNames =
    [
        new(98, "ASYNC_IO_COMPLETION"),
        new(187, "BACKUPBUFFER"),
        new(188, "BACKUPIO"),
        new(189, "BACKUPTHREAD"),
        new(1024, "PREEMPTIVE_OS_WRITEFILEGATHER"),
    ];

    public static XelCatalogue Create()
    {
        var catalogue = new XelCatalogue
        {
            SessionGuid = Guid.Parse("0b5e1a2c-3d4e-4f60-8a9b-0c1d2e3f4a5b"),
            Clock = new XelClock(new DateTime(2024, 5, 1, 0, 0, 0, DateTimeKind.Utc).ToFileTimeUtc(), 10_000_000),
        };

        catalogue.Add(new XelPackage(
            0x80000000, "package0", "Default package. Contains all standard types, maps, compare operators, actions and targets",
            Guid.Parse("60AA9FBF-673B-4553-B7ED-71DCA7F5E972"), Guid.Parse("CE79811F-1A80-40E1-8F5D-7445A3F375E7"),
            [], [], [],
            [
                Type(Uint8, "uint8", 1), Type(Uint16, "uint16", 2), Type(Uint32, "uint32", 4), Type(Uint64, "uint64", 8),
                Type(Ptr, "ptr", 8), Type(UnicodeString, "unicode_string", 0), Type(GuidPtr, "guid_ptr", 8),
            ]));

        catalogue.Add(new XelPackage(
            0x80000001, "sqlos", "Extended events for SQL Operating System",
            Guid.Parse("BD97CC63-3F38-4922-AA93-607BD12E78B2"), Guid.Parse("CE79811F-1A80-40E1-8F5D-7445A3F375E7"),
            [Wait(0x00000401, "wait_info", "4B2B6A61-0C1B-4C59-9FF6-2D1C4C3E5A01"), Wait(0x00000801, "wait_info_external", "4B2B6A61-0C1B-4C59-9FF6-2D1C4C3E5A02")],
            [],
            [
                new XelMap(WaitTypes, "wait_types", "sqlos", "Wait types", 2, WaitNames),
                new XelMap(EventOpcode, "event_opcode", "sqlos", "Event opcodes", 1, [new(1, "End"), new(0, "Begin")]),
            ],
            []));

        catalogue.Add(new XelPackage(
            0x80000002, "sqlserver", "Extended events for Microsoft SQL Server",
            Guid.Parse("655FD93F-3364-40D5-B2BA-330F7FFB6491"), Guid.Parse("3B9B1C5C-0C0E-4D36-B0A6-A1C3C0C3A0A1"),
            [
                new XelEventClass(
                    0x00007802, "backup_restore_progress_trace", "sqlserver", "Print backup/restore progress trace messages with details",
                    ReadOnly("2B6B2B5C-9A6B-4E3B-8E6E-1B1C4C3E5A03"), [],
                    [
                        new XelDataColumn(OperationType, "operation_type", 0, 0, "Type of operation"),
                        new XelDataColumn(TraceLevel, "trace_level", 4, 0, "Trace level"),
                        new XelDataColumn(UnicodeString, "database_name", 5, 0, "Database name"),
                        new XelDataColumn(UnicodeString, "trace_message", 13, 0, "Trace message"),
                    ],
                    2),
            ],
            [
                new XelActionClass(0x10000802, "session_id", "sqlserver", "Collect session ID", Uint16),
                new XelActionClass(0x10000803, "database_name", "sqlserver", "Collect current database name", UnicodeString),
            ],
            [
                new XelMap(OperationType, "backup_restore_operation_type", "sqlserver", "Backup or restore", 4, [new(0, "Backup"), new(1, "Restore")]),
                new XelMap(TraceLevel, "backup_restore_trace_level", "sqlserver", "Trace level", 1, [new(0, "Major steps"), new(1, "Verbose I/O")]),
            ],
            []));
        return catalogue;
    }

    /// <summary>
    /// A progress event; <paramref name="currentDatabase"/> adds the <c>sqlserver.database_name</c> action, the
    /// database the session was in when it ran the command (what a capture session with that action records).
    /// </summary>
    public static XeEvent Progress(DateTime at, int session, string database, string message, bool restore = false, string? currentDatabase = null) =>
        new(
            "backup_restore_progress_trace",
            "sqlserver",
            at,
            [
                new XeValue("operation_type", "sqlserver", "backup_restore_operation_type", restore ? 1UL : 0UL, restore ? "Restore" : "Backup"),
                new XeValue("trace_level", "sqlserver", "backup_restore_trace_level", 0UL, "Major steps"),
                new XeValue("database_name", "sqlserver", "unicode_string", database),
                new XeValue("trace_message", "sqlserver", "unicode_string", message),
            ],
            currentDatabase is null
                ? [SessionId(session)]
                : [SessionId(session), new XeValue("database_name", "sqlserver", "unicode_string", currentDatabase)]);

    public static XeEvent Wait(DateTime at, int session, string waitType, ulong durationMs, ulong signalMs = 0, bool begin = false, bool external = false)
    {
        var key = WaitNames.Single(w => w.Value == waitType).Key;
        return new XeEvent(
            external ? "wait_info_external" : "wait_info",
            "sqlos",
            at,
            [
                new XeValue("wait_type", "sqlos", "wait_types", (ulong)key, waitType),
                new XeValue("opcode", "sqlos", "event_opcode", begin ? 0UL : 1UL, begin ? "Begin" : "End"),
                new XeValue("duration", "sqlos", "uint64", begin ? 0UL : durationMs),
                new XeValue("signal_duration", "sqlos", "uint64", begin ? 0UL : signalMs),
                new XeValue("wait_resource", "sqlos", "ptr", 0x7FF6_1234_5678UL),
            ],
            [SessionId(session)]);
    }

    /// <summary>
    /// The same events as fn_xe_file_target_read_file's event_data rows, saved one after another: the XML twin
    /// of a built .xel. Timestamps keep all seven fractional digits so that both carry the same instants.
    /// </summary>
    public static string ToXml(IEnumerable<XeEvent> events)
    {
        var xml = new StringBuilder();
        foreach (var e in events)
        {
            xml.Append(CultureInfo.InvariantCulture, $"<event name=\"{e.Name}\" package=\"{e.Package}\" timestamp=\"{e.Timestamp:yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'}\">");
            foreach (var field in e.Fields)
            {
                xml.Append(CultureInfo.InvariantCulture, $"<data name=\"{field.Name}\"><type name=\"{field.Type}\" package=\"{e.Package}\"/>");
                xml.Append(CultureInfo.InvariantCulture, $"<value>{SecurityElement.Escape(XeValue.Format(field.Type, field.Value))}</value>");
                if (field.Text is not null)
                {
                    xml.Append(CultureInfo.InvariantCulture, $"<text>{SecurityElement.Escape(field.Text)}</text>");
                }

                xml.Append("</data>");
            }

            foreach (var action in e.Actions)
            {
                xml.Append(CultureInfo.InvariantCulture, $"<action name=\"{action.Name}\" package=\"{action.Package}\"><type name=\"{action.Type}\" package=\"package0\"/><value>{SecurityElement.Escape(action.Display)}</value></action>");
            }

            xml.Append("</event>\n");
        }

        return xml.ToString();
    }

    private static XeValue SessionId(int session) => new("session_id", "sqlserver", "uint16", (ulong)session);

    private static XelType Type(uint id, string name, byte size) => new(id, name, "package0", $"{name} type", size);

    private static XelEventClass Wait(uint id, string name, string uuid) =>
        new(
            id, name, "sqlos", "Occurs when there is a wait on a SQLOS controlled resource",
            ReadOnly(uuid), [],
            [
                new XelDataColumn(WaitTypes, "wait_type", 0, 0, "Value representing the type of wait"),
                new XelDataColumn(EventOpcode, "opcode", 2, 0, "Begin or End"),
                new XelDataColumn(Uint64, "duration", 3, 0, "Total wait time in milliseconds"),
                new XelDataColumn(Uint64, "signal_duration", 11, 0, "Time between signal and run in milliseconds"),
                new XelDataColumn(Ptr, "wait_resource", 19, 0, "Address of the resource waited on"),
            ],
            5);

    private static IReadOnlyList<XelReadOnlyColumn> ReadOnly(string uuid) =>
    [
        new XelReadOnlyColumn(GuidPtr, "UUID", Guid.Parse(uuid).ToByteArray(), "Globally Unique ID"),
        new XelReadOnlyColumn(Uint8, "VERSION", [1, 0, 0, 0, 0, 0, 0, 0], "Event schema version"),
    ];
}
