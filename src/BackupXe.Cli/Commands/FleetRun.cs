using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe fleet</c>: the history read only, every database judged against its targets, the page written to
/// <paramref name="console"/>.
/// </summary>
internal sealed class FleetRun(CliConsole console)
{
    public async Task<int> RunAsync(FleetSettings settings, CancellationToken cancellationToken)
    {
        foreach (var problem in settings.Problems)
        {
            await console.Error.WriteLineAsync($"backupxe: {problem}");
        }

        if (settings.Problems.Count > 0)
        {
            return ExitCodes.NothingUsable;
        }

        var chosen = settings.Format;
        if (chosen == "html" && !console.IsOutputRedirected)
        {
            await console.Error.WriteLineAsync("backupxe: --format html writes a page, not terminal text: redirect it to a file (> fleet.html).");
            return ExitCodes.NothingUsable;
        }

        var targets = RecoveryTargets.Standard;
        if (settings.SettingsFile is { } settingsFile)
        {
            var (read, problems) = TargetsFile.Read(settingsFile);
            foreach (var problem in problems)
            {
                await console.Error.WriteLineAsync($"backupxe: {settingsFile}: {problem}");
            }

            if (read is null)
            {
                return ExitCodes.NothingUsable;
            }

            targets = read;
        }

        if (settings.Store is { } store)
        {
            return await FromStoreAsync(store, targets, chosen, cancellationToken);
        }

        var file = settings.HistoryPath;
        if (!File.Exists(file))
        {
            await console.Error.WriteLineAsync($"backupxe: no history at '{file}': the daemon writes it (History:Path), `history import` too; name it with --history.");
            return ExitCodes.NothingUsable;
        }

        IReadOnlyList<InstanceOperation> records;
        IReadOnlyList<ReplicaRole> roles;
        IReadOnlyList<StoredMsdbRestore> restores;
        var reader = new SqliteImportedHistory(file, console.Time);
        try
        {
            // Read-only, as `history` reads it: the file is never created, altered or switched to WAL.
            await SqliteHistoryStore.ForReading(file, console.Time).VerifyAsync(cancellationToken);
            records = await reader.ReadAsync(null, null, cancellationToken);
            roles = await new SqliteReplicaRoles(file, console.Time).ReadAsync(cancellationToken);
            restores = await new SqliteMsdbRestores(file, console.Time).ReadAsync(cancellationToken);
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {file}: {exception.Message}");
            return ExitCodes.NothingUsable;
        }

        if (reader.UnreadableRows > 0)
        {
            await console.Error.WriteLineAsync($"backupxe: {file}: {reader.UnreadableRows} history rows could not be read and are left out");
        }

        var now = console.Time.GetUtcNow().UtcDateTime;
        IReadOnlyList<ComplianceInput> inputs;
        try
        {
            inputs = await FleetDrills.WithLastDrillsAsync(
                FleetDatabases.WithMsdbRestores(FleetDatabases.Inputs(records), restores.Select(r => (r.Instance, r.Restore))),
                new SqliteRestoreDrills(file, console.Time), cancellationToken);
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {file}: {exception.Message}");
            return ExitCodes.NothingUsable;
        }

        await WriteAsync(inputs, roles, targets, now, chosen);
        return reader.UnreadableRows > 0 ? ExitCodes.Partial : ExitCodes.Success;
    }

    /// <summary>
    /// The page from the central store (docs/fleet.md, "Not built yet" no more): the same records, roles, restores and
    /// drills the SQLite file holds, read with SELECTs only, over a connection encrypted unless told otherwise.
    /// </summary>
    private async Task<int> FromStoreAsync(ServerConnection store, RecoveryTargets targets, string chosen, CancellationToken cancellationToken)
    {
        if (store.Read(console.Error) is not { } connection)
        {
            return ExitCodes.NothingUsable;
        }

        return await ServerCall.RunAsync(console, connection, async factory =>
        {
            var retry = new TransientRetry();
            var reader = new SqlServerImportedHistory(factory, retry);
            IReadOnlyList<InstanceOperation> records;
            IReadOnlyList<ReplicaRole> roles;
            IReadOnlyList<StoredMsdbRestore> restores;
            try
            {
                await reader.InitializeAsync(cancellationToken);
                records = await reader.ReadAsync(null, null, cancellationToken);
                roles = await new SqlServerReplicaRoles(factory, retry).ReadAsync(cancellationToken);
                restores = await new SqlServerMsdbRestores(factory, retry).ReadAsync(cancellationToken);
            }
            catch (HistoryStoreException exception)
            {
                await console.Error.WriteLineAsync($"backupxe: {ConnectionStringRedactor.RedactMessage(connection.Server)}: {exception.Message}");
                return ExitCodes.NothingUsable;
            }

            if (reader.UnreadableRows > 0)
            {
                await console.Error.WriteLineAsync($"backupxe: {ConnectionStringRedactor.RedactMessage(connection.Server)}: {reader.UnreadableRows} history rows could not be read and are left out");
            }

            var inputs = await FleetDrills.WithLastDrillsAsync(
                FleetDatabases.WithMsdbRestores(FleetDatabases.Inputs(records), restores.Select(r => (r.Instance, r.Restore))),
                new SqlServerRestoreDrills(factory, retry), cancellationToken);
            await WriteAsync(inputs, roles, targets, console.Time.GetUtcNow().UtcDateTime, chosen);
            return reader.UnreadableRows > 0 ? ExitCodes.Partial : ExitCodes.Success;
        }, json: chosen == "json", verbose: store.Verbose);
    }

    private async Task WriteAsync(IReadOnlyList<ComplianceInput> inputs, IReadOnlyList<ReplicaRole> roles, RecoveryTargets targets, DateTime now, string chosen)
    {
        var fleet = BackupPreferenceCheck.Apply(Compliance.Evaluate(inputs, targets, now), roles);
        var page = new FleetPage(now, fleet);
        await console.Out.WriteAsync(chosen switch
        {
            "json" => FleetWriter.Json(page),
            "html" => FleetWriter.Html(page),
            _ => FleetWriter.Console(page),
        });
    }
}
