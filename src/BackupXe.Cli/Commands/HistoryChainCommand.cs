using System.CommandLine;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Fleet;
using BackupXe.Core.Restores;
using BackupXe.SqlServer.Msdb;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history chain</c>: each database's restore chain (docs/restore-chain.md), read only: whole or its gaps,
/// and the oldest moment a restore can reach. From the history file alone (its LSNs; "cannot tell" where it has none),
/// or from msdb with <c>--server</c>.
/// </summary>
internal static class HistoryChainCommand
{
    public static Command Create(CliConsole console)
    {
        var verb = new MsdbVerb(
            console,
            "chain",
            "Check each database's restore chain, from the history file or from msdb with --server: whole or its gaps, and the oldest point it can be restored to.",
            "Backups of the last 30d, 12h... or since a date (yyyy-mm-dd), server local time.",
            $"Without --server: the history file the chain is read from (its backups' LSNs); unset, the daemon's: {DaemonHistory.Variable}, else {BackupXe.History.SqliteHistoryStore.DefaultPath} here, else the service's data folder.");
        verb.SetAction<RestoreChainReport, RestoreChainWriter>(
            (_, _) => Task.FromResult<MsdbRead<RestoreChainReport>?>((server, since, databases, cancellationToken) => new MsdbBackupChain(server).CheckAsync(since, databases, cancellationToken)),
            (_, _, databases, _) => Task.FromResult<IReadOnlyList<RestoreChainReport>>(databases.SelectMany(Chain).ToList()));
        return verb.Command;
    }

    /// <summary>The database's chain from its history rows; an availability group database's from every replica's.</summary>
    internal static IEnumerable<RestoreChainReport> Chain(ComplianceInput database)
        => HistoryChain.Check(database.Operations).Select(report => database.GroupDatabaseId is null
            ? report
            : report with { Notes = [AvailabilityGroupNote(database), .. report.Notes] });

    /// <summary>Which replicas' backups a group database's report rests on.</summary>
    internal static string AvailabilityGroupNote(ComplianceInput database)
        => $"availability group database (group_database_id {database.GroupDatabaseId:D}): the backups of its replicas {string.Join(", ", database.Replicas)} in the history, taken together";
}
