using System.Globalization;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// How much a backup to URL can write before its target refuses more: the URLs it names times the blocks (Azure block
/// blob) or parts (S3 object) each holds times MAXTRANSFERSIZE, the most one block or part carries (<see cref="UrlLimits"/>,
/// docs/tuning.md, "Backups to URL"). A backup that grows past it fails part-way; BackupXe warns when one comes within
/// <see cref="Margin"/> of it.
/// </summary>
public sealed record UrlCapacity(UrlLimits Limits, int Urls, long TransferBytes)
{
    /// <summary>Warned from this share of the capacity on: one more month of growth must not be the one that fails.</summary>
    public const double Margin = 0.8;

    /// <summary>What the engine logs when a block blob has taken all its blocks (docs/diagnosis.md, "URL targets").</summary>
    public const string BlockLimitMessage = "Device has reached its limit of allowed blocks";

    private const long MB = DiagnosisSettings.MegaByte;

    /// <summary>What the URLs hold in all.</summary>
    public long CapacityBytes => Limits.CapacityBytes(Urls, TransferBytes);

    /// <summary>The capacity of a backup to <paramref name="devices"/> at <paramref name="maxTransferSize"/> (null: the target's default); null unless every device is a URL of one kind BACKUP writes to.</summary>
    public static UrlCapacity? Of(IReadOnlyList<string> devices, long? maxTransferSize)
    {
        ArgumentNullException.ThrowIfNull(devices);
        if (devices.Count == 0)
        {
            return null;
        }

        // Every operation's report asks, and almost none writes to a URL: the first device usually settles it.
        if (LimitsOf(devices[0]) is not { } one)
        {
            return null;
        }

        for (var i = 1; i < devices.Count; i++)
        {
            if (!Equals(LimitsOf(devices[i]), one))
            {
                return null;
            }
        }

        return new UrlCapacity(one, devices.Count, maxTransferSize ?? one.DefaultTransferBytes);
    }

    /// <summary>The storage a BACKUP TO URL device writes to: s3:// is S3-compatible storage, https:// an Azure blob (block blobs, written with a Shared Access Signature credential).</summary>
    public static UrlLimits? LimitsOf(string device) =>
        device.StartsWith("s3://", StringComparison.OrdinalIgnoreCase) ? UrlLimits.S3Compatible
        : device.StartsWith("https://", StringComparison.OrdinalIgnoreCase) ? UrlLimits.AzureBlockBlob
        : null;

    /// <summary>True when <paramref name="bytes"/> reach <see cref="Margin"/> of the capacity.</summary>
    public bool Near(long bytes) => bytes >= CapacityBytes * Margin;

    /// <summary>"1 URL x 10,000 parts x 10 MB = 97.7 GB".</summary>
    public string Arithmetic => string.Create(CultureInfo.InvariantCulture,
        $"{Urls} URL{(Urls == 1 ? "" : "s")} x {Limits.BlocksPerBlob:N0} {Limits.BlockWord}s x {TransferBytes / (double)MB:0.##} MB = {Figures.Bytes(CapacityBytes)}");

    /// <summary>The fewest URLs that hold <paramref name="bytes"/> at the largest MAXTRANSFERSIZE the target takes; null past 64.</summary>
    public int? UrlsAtLargestTransfer(long bytes)
    {
        var urls = Limits.MinimumUrls(bytes, Limits.MaxTransferBytes);
        return urls <= Limits.MaxUrls ? urls : null;
    }

    /// <summary>
    /// The sentence for a backup of <paramref name="bytes"/> (null when not near the capacity): what fails, with the
    /// arithmetic, and what holds it. <paramref name="failed"/> says the backup already failed.
    /// </summary>
    public string? Warning(long bytes, bool failed)
    {
        if (!Near(bytes))
        {
            return null;
        }

        var over = bytes > CapacityBytes;
        var size = Figures.Bytes(bytes);
        var head = failed && over
            ? $"This backup to URL failed by arithmetic: {size} to write, but {Arithmetic} is all its {Limits.BlobWord}s hold."
            : over
                ? string.Create(CultureInfo.InvariantCulture, $"This backup to URL will fail: {size} to write, but {Arithmetic} is all its {Limits.BlobWord}s hold.")
                : string.Create(CultureInfo.InvariantCulture, $"This backup to URL is within {100 - (int)(Margin * 100)}% of what its target holds: {size} of {Arithmetic} ({Math.Round(100.0 * bytes / CapacityBytes):0}%); it fails once it grows past that.");
        var larger = Limits.MaxTransferBytes > TransferBytes
            ? $" At MAXTRANSFERSIZE = {Limits.MaxTransferBytes / MB} MB (the most it takes{(Limits == UrlLimits.S3Compatible ? ", with COMPRESSION, which S3 needs to change it" : "")}) one {Limits.BlobWord} holds {Figures.Bytes(Limits.CapacityBytes(1, Limits.MaxTransferBytes))}."
            : string.Empty;
        var urls = UrlsAtLargestTransfer(bytes * 5 / 4);
        var stripe = urls is { } n
            ? $" Stripe it over at least {n} URLs at that size to leave a quarter for growth."
            : $" Even {Limits.MaxUrls} URLs at that size do not hold it with room for growth: back up to disk, or split the database's backup (files and filegroups).";
        return head + larger + stripe;
    }
}
