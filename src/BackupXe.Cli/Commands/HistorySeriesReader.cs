using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>The statistics <c>backupxe history</c> prints: every stored operation of the filter, imported and captured, folded and summarised per series.</summary>
internal static class HistorySeriesReader
{
    public static async Task<IReadOnlyList<SeriesFigures>> ReadAsync(
        string path, string? instance, OperationFilter filter, OperationKind? kind, TextWriter error, CancellationToken cancellationToken)
    {
        var history = new SqliteImportedHistory(path, TimeProvider.System);
        var records = (await history.ReadAsync(instance, null, cancellationToken))
            .Where(r => filter.MatchesDatabase(r.Record.Database) && filter.MatchesStart(r.Record.Start));
        if (history.UnreadableRows > 0)
        {
            await error.WriteLineAsync($"backupxe: {path}: {history.UnreadableRows} history rows could not be read and are left out of the statistics");
        }

        return SeriesStatistics.Compute(kind is { } k ? records.Where(r => r.Record.Kind == k) : records);
    }
}
