using System.Globalization;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// The BACKUP options one trial asks for; null leaves an option to the server's default. <see cref="Files"/> are
/// spread round-robin over the directories the tune was given.
/// </summary>
public sealed record TrialOptions(
    int Files,
    int? BufferCount,
    long? MaxTransferSizeBytes,
    int? BlockSizeBytes,
    bool? Compression,
    string? CompressionAlgorithm = null,
    string? CompressionLevel = null)
{
    public static readonly TrialOptions Defaults = new(1, null, null, null, null);

    /// <summary>BUFFERCOUNT x MAXTRANSFERSIZE when both are asked for; the server's own count may be higher.</summary>
    public long? RequestedBufferBytes => BufferCount is { } count && MaxTransferSizeBytes is { } size ? count * size : null;

    /// <summary>"2 files, BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB, BLOCKSIZE 65536, COMPRESSION (ZSTD, LOW)".</summary>
    public string Describe()
    {
        var parts = new List<string> { Files == 1 ? "1 file" : $"{Files} files" };
        parts.Add(BufferCount is { } count ? $"BUFFERCOUNT {count}" : "default BUFFERCOUNT");
        parts.Add(MaxTransferSizeBytes is { } size ? $"MAXTRANSFERSIZE {Figures.Memory(size)}" : "default MAXTRANSFERSIZE");
        if (BlockSizeBytes is { } block)
        {
            parts.Add($"BLOCKSIZE {block.ToString(CultureInfo.InvariantCulture)}");
        }

        parts.Add(Compression switch
        {
            true when CompressionAlgorithm is { } algorithm => CompressionLevel is { } level ? $"COMPRESSION ({algorithm}, {level})" : $"COMPRESSION ({algorithm})",
            true => "COMPRESSION",
            false => "NO_COMPRESSION",
            null => "server's default compression",
        });
        return string.Join(", ", parts);
    }
}
