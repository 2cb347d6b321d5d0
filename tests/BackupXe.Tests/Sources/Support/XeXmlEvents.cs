namespace BackupXe.Tests.Sources.Support;

/// <summary>XE XML events in the exact shape the server returns them (docs/backup-internals.md#xe-xml-event-shape).</summary>
internal static class XeXmlEvents
{
    public static string Progress(string timestamp, string message, string operation = "Backup", int sessionId = 53, string database = "backuptest") =>
        $"""
        <event name="backup_restore_progress_trace" package="sqlserver" timestamp="{timestamp}">
          <data name="operation_type"><type name="backup_restore_operation_type" package="sqlserver"/><value>{(operation == "Backup" ? 0 : 1)}</value><text>{operation}</text></data>
          <data name="trace_level"><type name="backup_restore_trace_level" package="sqlserver"/><value>0</value><text>Major steps</text></data>
          <data name="database_name"><type name="unicode_string" package="package0"/><value>{database}</value></data>
          <data name="trace_message"><type name="unicode_string" package="package0"/><value><![CDATA[{message}]]></value></data>
          <action name="session_id" package="sqlserver"><type name="uint16" package="package0"/><value>{sessionId}</value></action>
        </event>
        """;

    public static string Wait(string timestamp, string waitType, string opcode, long duration, long signal = 0, string name = "wait_info", int sessionId = 53) =>
        $"""
        <event name="{name}" package="sqlos" timestamp="{timestamp}">
          <data name="wait_type"><type name="wait_types" package="sqlos"/><value>187</value><text>{waitType}</text></data>
          <data name="opcode"><type name="event_opcode" package="sqlos"/><value>{(opcode == "Begin" ? 0 : 1)}</value><text>{opcode}</text></data>
          <data name="duration"><type name="uint64" package="package0"/><value>{duration}</value></data>
          <data name="signal_duration"><type name="uint64" package="package0"/><value>{signal}</value></data>
          <action name="session_id" package="sqlserver"><type name="uint16" package="package0"/><value>{sessionId}</value></action>
        </event>
        """;

    public static string RingBuffer(params string[] events) =>
        $"""
        <RingBufferTarget truncated="0" processingTime="0" totalEventsProcessed="{events.Length}" eventCount="{events.Length}" droppedCount="0" memoryUsed="1024">
        {string.Join("\n", events)}
        </RingBufferTarget>
        """;
}
