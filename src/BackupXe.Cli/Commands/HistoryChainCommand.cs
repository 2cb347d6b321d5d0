using System.CommandLine;
using BackupXe.Cli.Rendering;
using BackupXe.Core.History;
using BackupXe.SqlServer.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history chain --server S</c>: each database's restore chain from msdb (docs/restore-chain.md), read only:
/// whole or its gaps, and the oldest moment a restore can reach.
/// </summary>
internal static class HistoryChainCommand
{
    public static Command Create(CliConsole console)
    {
        var verb = new MsdbVerb(
            console,
            "chain",
            "Check each database's restore chain in msdb: whole or its gaps, and the oldest point it can be restored to.",
            "Backups of the last 30d, 12h... or since a date (yyyy-mm-dd), server local time.");
        verb.SetAction<RestoreChainReport, RestoreChainWriter>((_, _) =>
            Task.FromResult<MsdbRead<RestoreChainReport>?>((server, since, databases, cancellationToken) => new MsdbBackupChain(server).CheckAsync(since, databases, cancellationToken)));
        return verb.Command;
    }
}
