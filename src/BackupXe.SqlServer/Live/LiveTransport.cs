namespace BackupXe.SqlServer.Live;

/// <summary>The ways a live server is read, by the names the CLI and the daemon's configuration use.</summary>
public static class LiveTransport
{
    /// <summary>Tail the capture session's event_file target with sys.fn_xe_file_target_read_file; resumable, the default.</summary>
    public const string File = "file";

    /// <summary>Experimental: sys.fn_MSxe_read_event_stream decoded by the .xel decoder; lowest latency, gaps reported.</summary>
    public const string Stream = "stream";

    /// <summary>Read an existing session's ring_buffer target (the Managed Instance route); no checkpoint, losses reported.</summary>
    public const string RingBuffer = "ring_buffer";
}
