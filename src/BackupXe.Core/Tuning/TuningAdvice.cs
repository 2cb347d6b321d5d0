using System.Globalization;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// What a finished tune recommends: the BACKUP statement with the best trial's options, the same as Ola Hallengren's
/// DatabaseBackup parameters, which side limits with its evidence, and the disk benchmark that confirms the target.
/// </summary>
public static class TuningAdvice
{
    /// <summary>From this share of the read ceiling the best trial is read-limited.</summary>
    public const double SourceShare = 0.90;

    /// <summary>The production statement (no COPY_ONLY): the best trial's options, files named {database}_n.bak in the given directories.</summary>
    public static string? RecommendedSql(TuningResult result)
    {
        if (result.Best is not { } best)
        {
            return null;
        }

        var plan = result.Plan;
        var devices = Enumerable.Range(0, best.Requested.Files)
            .Select(i => TrialStatement.Join(plan.Directories[i % plan.Directories.Count], FileName(plan.Database, i, best.Requested.Files)))
            .ToList();
        var statement = TrialStatement.ToFiles(plan.Database, plan.Directories, best.Requested, "x", 0, 0);
        return statement.RecommendedSql(devices);
    }

    /// <summary>@Directory, @NumberOfFiles, @BufferCount, @MaxTransferSize, @BlockSize, @Compress, @CompressionAlgorithm and @CompressionLevel (where set).</summary>
    public static IReadOnlyList<(string Name, string Value)> OlaParameters(TuningResult result)
    {
        if (result.Best is not { } best)
        {
            return [];
        }

        var options = best.Requested;
        var list = new List<(string, string)>
        {
            ("@Databases", Tsql.Literal(result.Plan.Database)),
            ("@BackupType", "'FULL'"),
            ("@Directory", Tsql.Literal(string.Join(",", result.Plan.Directories))),
            ("@NumberOfFiles", Tsql.Number(options.Files)),
        };
        if (options.BufferCount is { } count)
        {
            list.Add(("@BufferCount", Tsql.Number(count)));
        }

        if (options.MaxTransferSizeBytes is { } size)
        {
            list.Add(("@MaxTransferSize", Tsql.Number(size)));
        }

        if (options.BlockSizeBytes is { } block)
        {
            list.Add(("@BlockSize", Tsql.Number(block)));
        }

        if (options.Compression is { } compression)
        {
            list.Add(("@Compress", compression ? "'Y'" : "'N'"));
        }

        if (options.Compression == true && options.CompressionAlgorithm is { } algorithm)
        {
            list.Add(("@CompressionAlgorithm", Tsql.Literal(algorithm)));
            if (options.CompressionLevel is { } level)
            {
                list.Add(("@CompressionLevel", Tsql.Literal(level)));
            }
        }

        return list;
    }

    /// <summary>"EXECUTE dbo.DatabaseBackup @Databases = N'Sales', ...;"</summary>
    public static string? OlaCommand(TuningResult result)
    {
        var parameters = OlaParameters(result);
        return parameters.Count == 0 ? null
            : "EXECUTE dbo.DatabaseBackup\n    " + string.Join(",\n    ", parameters.Select(p => $"{p.Name} = {p.Value}")) + ";";
    }

    /// <summary>Which side limits the best trial, and the sentences that show it.</summary>
    public static (LimitingSide Side, IReadOnlyList<string> Evidence) Limit(TuningResult result)
    {
        if (result.Best is not { } best || result.ReadCeiling is not { RateMBps: > 0 } ceiling)
        {
            return (LimitingSide.CannotTell, ["No trial to the target and the read ceiling both completed: which side limits cannot be told."]);
        }

        var ratio = best.RateMBps / ceiling.RateMBps;
        var evidence = new List<string>
        {
            $"The best trial ran at {Figures.Rate(best.RateMBps)}, {Figures.Percent(ratio)} of the read ceiling ({Figures.Rate(ceiling.RateMBps)}, COPY_ONLY to NUL without compression).",
        };
        if (ratio >= SourceShare || best.Bottleneck == Bottleneck.DataFileRead)
        {
            evidence.Add("The source is the limit: the data files cannot be read faster, whatever the target. More volumes for the data files (more readers) or faster storage move it.");
            return (LimitingSide.Source, evidence);
        }

        if (best.Verdict?.Evidence.FirstOrDefault(e => e.StartsWith("BACKUPIO took", StringComparison.Ordinal)) is { } io)
        {
            evidence.Add(io);
        }

        var buffers = result.Trials.Where(t => t.Purpose == TrialPurpose.MoreBufferMemory && !t.OptionsDiffer && t.Runs.Count > 0).ToList();
        if (buffers.Count > 0 && buffers.Max(t => t.RateMBps) < best.RateMBps * (1 + Tuner.MinimumGain) && buffers.Max(t => t.BufferMemoryBytes) >= best.BufferMemoryBytes)
        {
            evidence.Add($"More buffer memory (up to {Figures.Memory(buffers.Max(t => t.BufferMemoryBytes) ?? 0)}) left the rate flat, within {Figures.Percent(Tuner.MinimumGain)}.");
        }

        if (best.Bottleneck == Bottleneck.CompressionCpu)
        {
            evidence.Add("Compression CPU is the limit of the best trial: the CPUs, not the target, set its pace.");
            return (LimitingSide.CannotTell, evidence);
        }

        evidence.Add("The target is the limit: it writes slower than the source reads. Confirm its write speed on the server itself with the benchmark below.");
        return (LimitingSide.Target, evidence);
    }

    /// <summary>
    /// A sequential-write benchmark of the first directory at the best trial's transfer size (each backup write is
    /// one MAXTRANSFERSIZE buffer) and its buffers per file as the queue depth: diskspd on Windows, fio on Linux.
    /// </summary>
    public static string Benchmark(TuningResult result)
    {
        var best = result.Best?.Requested ?? TrialOptions.Defaults;
        var kb = (best.MaxTransferSizeBytes ?? OperationMeasures.DefaultMaxTransferSize) / 1024;
        var depth = Math.Max(1, (best.BufferCount ?? 7) / Math.Max(1, best.Files));
        var directory = result.Plan.Directories[0];
        var inv = CultureInfo.InvariantCulture;
        if (result.Facts.Linux)
        {
            var file = TrialStatement.Join(directory, "backupxe-fio.dat");
            return string.Create(inv, $"fio --name=backupxe-write --filename='{file.Replace("'", "'\\''", StringComparison.Ordinal)}' --rw=write --bs={kb}k --iodepth={depth} --direct=1 --ioengine=libaio --size=10g --runtime=60 --time_based && rm '{file.Replace("'", "'\\''", StringComparison.Ordinal)}'");
        }

        var target = TrialStatement.Join(directory, "backupxe-diskspd.dat");
        return string.Create(inv, $"diskspd.exe -c10G -b{kb}K -o{depth} -t1 -w100 -si -Sh -d60 -L \"{target}\"  (then delete {target})");
    }

    private static string FileName(string database, int index, int files)
    {
        var safe = new string(database.Select(c => char.IsLetterOrDigit(c) || c is '_' or '-' ? c : '_').ToArray());
        return files == 1 ? $"{safe}.bak" : string.Create(CultureInfo.InvariantCulture, $"{safe}_{index + 1}.bak");
    }
}
