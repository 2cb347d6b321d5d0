using System.Globalization;

namespace BackupXe.Tests.Support;

/// <summary>
/// Full backups of one database as DatabaseBackup's job output prints them (CommandExecute's block around the engine's
/// own "Processed" and completion lines, Ola's file naming), on top of <see cref="OlaJobOutput"/>'s header.
/// </summary>
internal static class OlaNightlyRuns
{
    /// <summary>381 GiB in 8 KB pages: the issue's database.</summary>
    public const long BigDbPages = 381L * 131_072;

    /// <summary>One run: when, the engine's seconds, its pages, and the WITH options after CHECKSUM, COMPRESSION.</summary>
    public sealed record Run(DateTime Start, double Seconds, long Pages, string? Options = null, bool WrapCommand = false, int Stripes = 1);

    /// <summary>The issue's case: 790, 810 and 568 s with the server's default buffers, then 152 s with BUFFERCOUNT 50 and MAXTRANSFERSIZE 4 MB.</summary>
    public static IReadOnlyList<Run> BigDbNights { get; } =
    [
        new(new DateTime(2024, 5, 1, 1, 0, 0), 790.412, BigDbPages),
        new(new DateTime(2024, 5, 2, 1, 0, 0), 810.237, BigDbPages + 2_688),
        new(new DateTime(2024, 5, 3, 1, 0, 0), 568.903, BigDbPages + 5_376),
        new(new DateTime(2024, 5, 4, 1, 0, 0), 152.118, BigDbPages + 8_064, "BUFFERCOUNT = 50, MAXTRANSFERSIZE = 4194304", WrapCommand: true),
    ];

    public static string Output(string database, IEnumerable<Run> runs, string server = "SQL01")
    {
        var output = new OlaJobOutput(server);
        foreach (var run in runs)
        {
            Append(output, database, run);
        }

        return output.ToString();
    }

    private static void Append(OlaJobOutput output, string database, Run run)
    {
        var stamp = run.Start.ToString("yyyyMMdd_HHmmss", CultureInfo.InvariantCulture);
        var files = Enumerable.Range(1, run.Stripes)
            .Select(i => $@"DISK = N'\\nas01\sql\SQL01\{database}\FULL\SQL01_{database}_FULL_{stamp}{(run.Stripes > 1 ? $"_{i}" : "")}.bak'")
            .ToList();
        var with = "WITH CHECKSUM, COMPRESSION" + (run.Options is { } options ? ", " + options : "");
        output.Raw($"Date and time: {run.Start:yyyy-MM-dd HH:mm:ss}").Raw("Database context: [master]");
        if (run.WrapCommand)
        {
            // As a job history viewer or a copied page wraps it: the devices, then the options on lines of their own.
            output.Raw($"Command: BACKUP DATABASE [{database}] TO {string.Join(", ", files)}");
            var cut = with.IndexOf("BUFFERCOUNT", StringComparison.Ordinal);
            output.Raw(cut > 0 ? with[..cut].TrimEnd() : with);
            if (cut > 0)
            {
                output.Raw(with[cut..]);
            }
        }
        else
        {
            output.Raw($"Command: BACKUP DATABASE [{database}] TO {string.Join(", ", files)} {with}");
        }

        output.Raw(string.Create(CultureInfo.InvariantCulture, $"Processed {run.Pages - 2} pages for database '{database}', file '{database}' on file 1."))
            .Raw($"Processed 2 pages for database '{database}', file '{database}_log' on file 1.")
            .Raw(string.Create(CultureInfo.InvariantCulture,
                $"BACKUP DATABASE successfully processed {run.Pages} pages in {run.Seconds:0.000} seconds ({run.Pages * 8192 / 1048576.0 / run.Seconds:0.000} MB/sec)."));
        var client = TimeSpan.FromSeconds(Math.Ceiling(run.Seconds) + 1);
        output.Raw("Outcome: Succeeded")
            .Raw($"Duration: {client:hh\\:mm\\:ss}")
            .Raw($"Date and time: {run.Start + client:yyyy-MM-dd HH:mm:ss}")
            .Raw("\t");
    }
}
