namespace BackupXe.Core.Diagnosis;

/// <summary>
/// What BACKUP TO URL can write, from Microsoft's pages: at most 64 URLs in one backup; a block blob holds 50,000 blocks of
/// at most MAXTRANSFERSIZE each (default 1 MB, at most 4 MB in steps of 64 KB; 4194304 with BLOCKSIZE 65536 recommended);
/// an S3 object 10,000 parts of MAXTRANSFERSIZE (5 MB to 20 MB, default 10 MB, and changing it needs COMPRESSION).
/// </summary>
public sealed record UrlLimits(int MaxUrls, int BlocksPerBlob, long DefaultTransferBytes, long MinTransferBytes, long MaxTransferBytes, string BlockWord, string BlobWord)
{
    private const long MB = DiagnosisSettings.MegaByte;

    public static UrlLimits AzureBlockBlob { get; } = new(64, 50_000, 1 * MB, 64 * 1024, 4 * MB, "block", "blob");

    public static UrlLimits S3Compatible { get; } = new(64, 10_000, 10 * MB, 5 * MB, 20 * MB, "part", "object");

    /// <summary>Bytes <paramref name="urls"/> URLs hold at <paramref name="maxTransferSize"/> (null: the default).</summary>
    public long CapacityBytes(int urls, long? maxTransferSize) => urls * BlocksPerBlob * (maxTransferSize ?? DefaultTransferBytes);

    /// <summary>The fewest URLs that hold <paramref name="bytes"/> at <paramref name="maxTransferSize"/>.</summary>
    public int MinimumUrls(long bytes, long? maxTransferSize) =>
        (int)Math.Max(1, (bytes + CapacityBytes(1, maxTransferSize) - 1) / CapacityBytes(1, maxTransferSize));

    /// <summary>Whether BACKUP TO this storage takes the MAXTRANSFERSIZE (null: left to the server).</summary>
    public bool Takes(long? maxTransferSize, bool? compression) => maxTransferSize is not { } size
        || (size >= MinTransferBytes && size <= MaxTransferBytes && size % (64 * 1024) == 0
            && (this != S3Compatible || compression == true));
}
