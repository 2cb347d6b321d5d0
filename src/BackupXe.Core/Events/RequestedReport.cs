namespace BackupXe.Core.Events;

/// <summary>
/// What the command itself asked for, read from its text (Ola Hallengren's "Command:" line): the devices (stripes) and
/// the options it states; an option it leaves out is null (the server's default applied). Shown "as requested", beside
/// what the server reported where both exist.
/// </summary>
public sealed record RequestedReport(
    IReadOnlyList<string> Devices,
    int? BufferCount,
    long? MaxTransferSizeBytes,
    int? BlockSizeBytes,
    bool? Compression,
    bool? Checksum,
    bool CopyOnly,
    string Source);
