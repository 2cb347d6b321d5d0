using System.CommandLine;
using BackupXe.Cli.Rendering;
using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;
using BackupXe.History;
using BackupXe.SqlServer.Msdb;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history restore-estimate --server S</c>: how long restoring each database would take now, phase by phase,
/// from the chain msdb shows, the file sizes, the Instant File Initialization state and the rates measured in the
/// history or in msdb's backups (docs/restore-chain.md, "Restore time"). Read only; the history file too.
/// </summary>
internal static class HistoryRestoreEstimateCommand
{
    public static Command Create(CliConsole console)
    {
        var verb = new MsdbVerb(
            console,
            "restore-estimate",
            "Estimate how long restoring each database would take, phase by phase, from its chain in the history file or in msdb with --server, with what was measured and what assumed.",
            "Backups of the last 30d, 12h... or since a date (yyyy-mm-dd), server local time: the span the chain is picked from.",
            "The history file (the daemon's SQLite file): without --server, the chain and the rates come from it (the daemon's when unset); with --server, its restores, log restores and backups of each database give the measured rates (--history alone reads the daemon's; without it, msdb's backups give the rates).");
        var history = verb.History;
        OutputTarget.MustNotOverwriteWhatIsRead(verb.Command, verb.Output, result => OutputTarget.SqliteFiles(history.PathOf(result)));
        verb.SetAction<RestoreEstimateReport, RestoreEstimateWriter>(async (parse, cancellationToken) =>
        {
            var (records, problem) = await history.ReadAsync(parse, console.Error, cancellationToken);
            if (problem is not null)
            {
                await console.Error.WriteLineAsync(problem);
                return null;
            }

            var operations = await OperationsAsync(records, history.InstanceOf(parse), console.Error);
            var file = history.PathOf(parse);
            var instance = history.InstanceOf(parse);
            return async (server, since, databases, token) =>
            {
                var estimates = await new ServerRestoreEstimate(server).EstimateAsync(since, databases, operations, token);
                return file is null ? estimates : await WithDrillsAsync(estimates, file, instance, console.Error, token);
            };
        }, (parse, file, databases, token) => WithDrillsAsync(FromHistory(databases), file, history.InstanceOf(parse), console.Error, token));
        return verb.Command;
    }

    /// <summary>
    /// Each database's estimate from the history alone: its plan on the backups' LSNs, the rates its own runs measured;
    /// file sizes and Instant File Initialization are not in a history, so the zeroing phases are not counted.
    /// </summary>
    internal static IReadOnlyList<RestoreEstimateReport> FromHistory(IReadOnlyList<Core.Fleet.ComplianceInput> databases)
    {
        const string Unread = "from the history alone: the database's file sizes and Instant File Initialization are not in it (--server reads them from the server), so the file zeroing is not counted";
        var reports = new List<RestoreEstimateReport>();
        foreach (var database in databases)
        {
            foreach (var plan in HistoryChain.Plan(database.Operations))
            {
                var notes = database.GroupDatabaseId is null ? [Unread] : new[] { HistoryChainCommand.AvailabilityGroupNote(database), Unread };
                reports.Add(RestoreEstimator.Report(plan, new RestoreTarget(null, null, null, null), database.Operations, notes));
            }
        }

        return reports;
    }

    /// <summary>Each estimate with the latest completed restore drill of its database in the history, when there is one (docs/commands/restore-drill.md).</summary>
    private static async Task<IReadOnlyList<RestoreEstimateReport>> WithDrillsAsync(
        IReadOnlyList<RestoreEstimateReport> estimates, string file, string? instance, TextWriter error, CancellationToken cancellationToken)
    {
        var drills = new SqliteRestoreDrills(file, TimeProvider.System);
        var shown = new List<RestoreEstimateReport>(estimates.Count);
        foreach (var estimate in estimates)
        {
            try
            {
                shown.Add(await drills.LatestAsync(instance, estimate.Database, cancellationToken) is { } drill
                    ? (drill.Rates is { } rates ? RestoreEstimator.Calibrate(estimate, rates) : estimate) with { LastDrill = RestoreDrillWriter.MeasuredOn(drill) }
                    : estimate);
            }
            catch (HistoryStoreException exception)
            {
                await error.WriteLineAsync($"backupxe: {file}: {exception.Message}");
                return estimates;
            }
        }

        return shown;
    }

    /// <summary>
    /// The history's operations the rates are measured on: the named instance's, else per database those of the one
    /// instance holding it; a database on several instances is left out with one line, as the comparison does.
    /// </summary>
    private static async Task<IReadOnlyList<HistoryOperation>> OperationsAsync(IReadOnlyList<InstanceOperation>? records, string? instance, TextWriter error)
    {
        if (records is null)
        {
            return [];
        }

        if (instance is not null)
        {
            return records.Where(r => string.Equals(r.Instance, instance, StringComparison.OrdinalIgnoreCase)).Select(r => r.Record).ToList();
        }

        var chosen = new List<HistoryOperation>();
        foreach (var database in records.Where(r => r.Record.Database is not null).GroupBy(r => r.Record.Database!, StringComparer.OrdinalIgnoreCase))
        {
            var instances = database.Select(r => r.Instance).Distinct(StringComparer.OrdinalIgnoreCase).Order(StringComparer.OrdinalIgnoreCase).ToList();
            if (instances.Count == 1)
            {
                chosen.AddRange(database.Select(r => r.Record));
            }
            else
            {
                await error.WriteLineAsync($"backupxe: the history holds {TerminalText.Line(database.Key)} on {instances.Count} instances ({string.Join(", ", instances.Select(TerminalText.Line))}): its runs are left out of the rates; name one with --instance");
            }
        }

        return chosen;
    }
}
