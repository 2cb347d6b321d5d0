using System.Globalization;
using BackupXe.Core.Diagnosis;

namespace BackupXe.Core.Tuning;

/// <summary>
/// Options the server did not apply as asked, by name, with the first trial that showed it and what it used: later
/// trials go without them, and the report says why each matters for production.
/// </summary>
internal sealed class IgnoredOptions
{
    private readonly Dictionary<string, (Trial Trial, IgnoredOption Option, long? UsedTransferSize)> _seen = new(StringComparer.Ordinal);

    public int Count => _seen.Count;

    public void Add(Trial trial, IgnoredOption option, long? usedTransferSize) => _seen.TryAdd(option.Name, (trial, option, usedTransferSize));

    /// <summary>
    /// The options without what the server was seen to ignore: BUFFERCOUNT alone (the same memory at the transfer size the
    /// server kept) when it ignored MAXTRANSFERSIZE, MAXTRANSFERSIZE alone when it ignored BUFFERCOUNT, no BLOCKSIZE or
    /// COMPRESSION it ignored.
    /// </summary>
    public TrialOptions Without(TrialOptions options)
    {
        if (_seen.TryGetValue("MAXTRANSFERSIZE", out var transfer) && options.MaxTransferSizeBytes is { } size)
        {
            var used = transfer.UsedTransferSize ?? OperationMeasures.DefaultMaxTransferSize;
            options = options with
            {
                BufferCount = options.BufferCount is { } count ? (int)Math.Min(int.MaxValue, (long)count * size / used) : null,
                MaxTransferSizeBytes = null,
            };
        }

        if (_seen.ContainsKey("BUFFERCOUNT"))
        {
            options = options with { BufferCount = null };
        }

        if (_seen.ContainsKey("BLOCKSIZE"))
        {
            options = options with { BlockSizeBytes = null };
        }

        if (_seen.ContainsKey("COMPRESSION"))
        {
            options = options with { Compression = null, CompressionAlgorithm = null, CompressionLevel = null };
        }

        return options;
    }

    /// <summary>For each ignored option: where, on which server, and why it matters for production.</summary>
    public IReadOnlyList<string> Notes(TuningFacts facts, IReadOnlyList<UrlTarget> urls) => [.. _seen.Values.Select(i => Note(i.Trial, i.Option, facts, urls))];

    private static string Note(Trial trial, IgnoredOption option, TuningFacts facts, IReadOnlyList<UrlTarget> urls)
    {
        var server = $"SQL Server {(facts.MajorVersion is { } major ? major.ToString(CultureInfo.InvariantCulture) : "of an unknown version")}"
            + (facts.EngineEdition is { } edition ? $", engine edition {edition.ToString(CultureInfo.InvariantCulture)} ({EditionName(edition)})" : "")
            + (urls.Count > 0 ? $", to {urls[0].Limits.BlobWord}s" : facts.Linux ? ", to disk on Linux" : ", to disk");
        var why = option.Name switch
        {
            "MAXTRANSFERSIZE" => $"a production backup that sets it gets {option.Used} too, so its buffer memory is BUFFERCOUNT x {option.Used}, not x {option.Asked}; the search retried with BUFFERCOUNT alone (the same memory at the server's transfer size) and recommends no MAXTRANSFERSIZE"
                + (facts.Encrypted ? ". The database is encrypted (TDE): compression of a TDE database needs MAXTRANSFERSIZE above 64 KB (SQL Server 2016 CU4 and later)" : ""),
            "BUFFERCOUNT" => $"a production backup that sets it gets {option.Used} buffers too; the search retried with MAXTRANSFERSIZE alone and recommends no BUFFERCOUNT",
            "BLOCKSIZE" => "a production backup that sets it gets the server's block size too; no BLOCKSIZE is recommended",
            "COMPRESSION" => "a production backup that sets it is not compressed as asked; the search leaves compression to the server's default",
            _ => "the trial measured something else than it asked for",
        };
        return $"{option.Name}: trial {trial.Number} asked {option.Asked}, the server used {option.Used} ({server}). It matters because {why}. Microsoft's BACKUP page does not say when the server overrides it: confirm on production with the buffer configuration (trace flag 3213, or the capture session).";
    }

    private static string EditionName(int edition) => edition switch
    {
        2 => "Standard",
        3 => "Enterprise or Developer",
        4 => "Express",
        5 => "Azure SQL Database",
        8 => "Managed Instance",
        _ => "other",
    };
}
