namespace BackupXe.Core.Tuning;

/// <summary>
/// What the server says before any trial: the database's size, whether compression is available and which
/// algorithms (SQL Server 2022: MS_XPRESS, QAT_DEFLATE; 2025: ZSTD with levels), the server's default, and its
/// platform (the disk benchmark differs).
/// </summary>
public sealed record TuningFacts(
    long DatabaseBytes,
    bool CompressionAvailable,
    bool CompressionDefault,
    IReadOnlyList<string> CompressionAlgorithms,
    IReadOnlyList<string> CompressionLevels,
    bool Encrypted,
    bool Linux)
{
    /// <summary>The log files' allocated size (a full backup holds at most this much of the log); 0 when not read.</summary>
    public long LogBytes { get; init; }

    /// <summary>SERVERPROPERTY('ProductMajorVersion'); null when not known.</summary>
    public int? MajorVersion { get; init; }

    /// <summary>SERVERPROPERTY('EngineEdition'); null when not known.</summary>
    public int? EngineEdition { get; init; }
}
