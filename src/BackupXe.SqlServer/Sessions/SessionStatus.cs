namespace BackupXe.SqlServer.Sessions;

/// <summary>One row of <c>backupxe-session-status.sql</c>.</summary>
/// <param name="Exists">Defined in sys.server_event_sessions.</param>
/// <param name="Running">Present in sys.dm_xe_sessions.</param>
/// <param name="StartsWithServer">STARTUP_STATE; null when the session does not exist.</param>
/// <param name="Targets">Defined targets as package.name, e.g. package0.event_file.</param>
/// <param name="DroppedEventCount">Events the server dropped; null unless running.</param>
/// <param name="DroppedBufferCount">Whole buffers the server dropped; null unless running.</param>
/// <param name="ConfiguredFile">The event_file target's filename setting.</param>
/// <param name="CurrentFile">The file being written now (with the server's rollover suffix); null unless running.</param>
/// <param name="BufferMemoryBytes">sys.dm_xe_sessions.total_buffer_size; null unless running.</param>
public sealed record SessionStatus(
    string SessionName,
    bool Exists,
    bool Running,
    bool? StartsWithServer,
    IReadOnlyList<string> Targets,
    long? DroppedEventCount,
    long? DroppedBufferCount,
    string? ConfiguredFile,
    string? CurrentFile,
    long? BufferMemoryBytes = null)
{
    /// <summary>The status of a session that is not defined on the server.</summary>
    public static SessionStatus Missing(string sessionName) =>
        new(sessionName, Exists: false, Running: false, StartsWithServer: null, [], null, null, null, null);

    /// <summary>The server lost events: the capture is incomplete and the report should say so.</summary>
    public bool LostEvents => DroppedEventCount > 0 || DroppedBufferCount > 0;
}
