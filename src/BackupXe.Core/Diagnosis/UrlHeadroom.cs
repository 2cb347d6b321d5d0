using System.Globalization;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// A completed backup to URL as msdb records it (what it wrote, to how many URLs), held against what those URLs take
/// (<see cref="UrlCapacity"/>). msdb does not record MAXTRANSFERSIZE, so the capacity is read at the target's default,
/// and where the backup wrote more than the default allows, the job must set a larger one: then only the largest
/// MAXTRANSFERSIZE bounds it, and the sentence says so.
/// </summary>
public sealed record UrlHeadroom(string Database, string Type, DateTime Finished, long WrittenBytes, int Urls, UrlCapacity AtDefault, UrlCapacity AtLargest)
{
    /// <summary>The headroom of a backup to <paramref name="device"/> (its first URL); null when the device is not a URL BACKUP writes to.</summary>
    public static UrlHeadroom? Of(string database, string type, DateTime finished, long writtenBytes, int urls, string device)
    {
        if (UrlCapacity.LimitsOf(device) is not { } limits || urls < 1 || writtenBytes < 0)
        {
            return null;
        }

        return new UrlHeadroom(database, type, finished, writtenBytes, urls,
            new UrlCapacity(limits, urls, limits.DefaultTransferBytes), new UrlCapacity(limits, urls, limits.MaxTransferBytes));
    }

    /// <summary>True when the backup already needs a MAXTRANSFERSIZE above the default: the job sets one, which msdb does not say.</summary>
    public bool BeyondDefault => WrittenBytes > AtDefault.CapacityBytes;

    /// <summary>True when the next backup of about this size may not fit: near the default's capacity, or near the largest's when it is beyond the default.</summary>
    public bool Near => BeyondDefault ? AtLargest.Near(WrittenBytes) : AtDefault.Near(WrittenBytes);

    /// <summary>"Sales (full, 2026-11-20): 85.0 GB written to 1 URL; 1 URL x 10,000 parts x 10 MB = 97.7 GB at the default MAXTRANSFERSIZE (87%)".</summary>
    public string Sentence
    {
        get
        {
            var written = string.Create(CultureInfo.InvariantCulture, $"{Database} ({TypeName}, {Finished:yyyy-MM-dd}): {Figures.Bytes(WrittenBytes)} written to {Urls} URL{(Urls == 1 ? "" : "s")}");
            return BeyondDefault
                ? string.Create(CultureInfo.InvariantCulture,
                    $"{written}, more than {AtDefault.Arithmetic} at the default MAXTRANSFERSIZE, so the job sets a larger one (msdb does not record it); at the largest, {AtLargest.Arithmetic} ({Percent(AtLargest)}%)")
                : string.Create(CultureInfo.InvariantCulture,
                    $"{written}; {AtDefault.Arithmetic} at the default MAXTRANSFERSIZE ({Percent(AtDefault)}%), unless the job sets a larger one (msdb does not record it)");
        }
    }

    private string TypeName => Type switch
    {
        "D" => "full",
        "I" => "differential",
        "L" => "log",
        _ => Type,
    };

    private int Percent(UrlCapacity capacity) => (int)Math.Round(100.0 * WrittenBytes / capacity.CapacityBytes);
}
