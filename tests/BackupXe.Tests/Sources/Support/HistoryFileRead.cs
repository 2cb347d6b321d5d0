using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Sources;

namespace BackupXe.Tests.Sources.Support;

/// <summary>A history file read to its end through the one streaming reader, kept whole for a test to look at.</summary>
internal sealed record HistoryFileRead(
    string Path, string? Format, string? Server, IReadOnlyList<HistoryOperation> Records, IReadOnlyList<InputProblem> Problems, int SkippedCommands)
{
    public static async Task<HistoryFileRead> ReadAsync(string path, CancellationToken cancellationToken)
    {
        await using var reading = await ImportFile.OpenAsync(path, cancellationToken);
        var records = new List<HistoryOperation>();
        await foreach (var record in reading.ReadRecordsAsync(cancellationToken))
        {
            records.Add(record);
        }

        return new HistoryFileRead(path, reading.Format, reading.Server, records, reading.Problems, reading.SkippedCommands);
    }
}
