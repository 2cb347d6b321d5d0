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
    bool Linux);
