using BackupXe.Core.Fleet;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.Imports;

/// <summary>
/// The daemon's <c>backupxe history import --server</c> for one live instance, every
/// <see cref="HistoryImportOptions.IntervalMinutes"/>: msdb and CommandLog rows of the lookback window are merged
/// into the history (the SQLite file, or the central store with the `sqlserver` provider) under the instance's configured name (so they merge with its captures), and each
/// newly added row gets the regression check, warning and metrics a captured operation gets. After each import the
/// restore chain of the last <see cref="ChainDays"/> is checked (docs/restore-chain.md) and each gap logged once, and
/// each database's restore time estimated with the rates this instance's history measured.
/// </summary>
internal sealed class PeriodicHistoryImport(
    IImportedHistory history, StoredBaselines regressions, BackupXeMetrics metrics, TimeProvider time, ILogger<PeriodicHistoryImport> logger,
    IOptions<BackupXeOptions>? options = null, IReplicaRoleStore? replicaRoles = null, IMsdbRestoreStore? msdbRestores = null,
    IRestoreDrillStore? drills = null)
{
    /// <summary>How far back the chain is read: as `check` reads it, long enough to hold a weekly full backup.</summary>
    public const int ChainDays = 30;

    // Gaps already logged, per instance, database and LSN: a gap stays in msdb for as long as its backups do.
    private readonly HashSet<(string Instance, string Database, decimal FromLsn, decimal ToLsn)> _gapsLogged = [];

    // Each database's last judged state, so a change is an event once (docs/fleet.md, "Change events").
    private readonly ComplianceChanges _changes = new();

    // Notes of a replica's roles already logged, per instance: a missing permission stays missing every import.
    private readonly HashSet<(string Instance, string Note)> _roleNotesLogged = [];

    // restorehistory notes already logged, per instance: a missing permission stays missing every import.
    private readonly HashSet<(string Instance, string Note)> _restoreNotesLogged = [];

    // The base each database's estimate was last logged for: logged again when its full or differential backup changes.
    private readonly Dictionary<(string Instance, string Database), (DateTime? Full, DateTime? Differential, bool Known)> _estimatesLogged = [];

    /// <summary>
    /// Imports after each interval until cancelled; a failed import is logged and the next one still runs, except
    /// when the history file is unusable (<see cref="HistoryStoreException"/>, thrown), which no retry mends.
    /// </summary>
    public async Task RunAsync(string instance, SqlConnectionFactory server, HistoryImportOptions options, CancellationToken cancellationToken)
    {
        var interval = TimeSpan.FromMinutes(options.IntervalMinutes);
        while (!cancellationToken.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(interval, time, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            try
            {
                await ImportOnceAsync(instance, server, options, cancellationToken);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return;
            }
            catch (Exception exception) when (exception is not HistoryStoreException)
            {
                // Only the type and a scrubbed message: a driver's message can quote the connection string.
                logger.HistoryImportFailed(instance, exception.GetType().Name, ConnectionStringRedactor.RedactMessage(exception.Message), options.IntervalMinutes);
            }
        }
    }

    /// <summary>One import; returns what it did to the history.</summary>
    public async Task<HistoryImportResult> ImportOnceAsync(string instance, SqlConnectionFactory server, HistoryImportOptions options, CancellationToken cancellationToken)
    {
        // msdb and CommandLog keep server local time; the daemon runs next to the server or in its time zone
        // in the common case, and the two-day default lookback absorbs an offset between them.
        var since = time.GetLocalNow().DateTime - TimeSpan.FromDays(options.LookbackDays);
        var read = await new ServerHistoryReader(server).ReadAsync(new ServerHistoryRequest(since, [], options.CommandLogDatabase), cancellationToken);
        await history.InitializeAsync(cancellationToken);
        var added = new List<HistoryOperation>();
        var imported = await history.ImportAsync(instance, read.Operations, cancellationToken, added);
        logger.HistoryImported(instance, read.Operations.Count, since, imported.Added, imported.Merged, imported.Unchanged);

        foreach (var operation in added)
        {
            var report = operation.ToReport();
            metrics.RecordOperation(instance, report);
            if (await regressions.CheckAsync(instance, report, cancellationToken) is { } regression)
            {
                metrics.RecordRegression(instance, report);
                logger.ThroughputRegressed(Kebab.Of(report.Kind), report.Database is null ? null : TerminalText.Line(report.Database), instance, regression);
            }
        }

        var chains = await CheckChainAsync(instance, server, cancellationToken);
        await ReadReplicaRolesAsync(instance, server, cancellationToken);
        await ReadMsdbRestoresAsync(instance, server, cancellationToken);
        await EstimateRestoresAsync(instance, server, cancellationToken);
        await JudgeAsync(instance, chains, cancellationToken);
        return imported;
    }

    /// <summary>Each new gap as one warning (event 190); a chain that cannot be read is one warning (event 191), and the import stands.</summary>
    /// <summary>
    /// The instance's databases against their targets (docs/fleet.md), from its history and the chains msdb's LSNs
    /// showed (with their recovery model), recorded as the per-instance compliance metrics. A database of an
    /// availability group is judged on the rows of every replica the history holds (docs/fleet.md, "Availability
    /// groups"), its chain on their LSNs: this replica's msdb holds only its own backups.
    /// </summary>
    private async Task JudgeAsync(string instance, IReadOnlyList<RestoreChainReport> chains, CancellationToken cancellationToken)
    {
        var targets = options?.Value.Targets.ToTargets() ?? RecoveryTargets.Standard;
        var byName = chains.GroupBy(c => c.Database, StringComparer.OrdinalIgnoreCase).ToDictionary(g => g.Key, g => g.First(), StringComparer.OrdinalIgnoreCase);
        var rows = (await history.ReadAsync(instance, null, cancellationToken)).ToList();
        // The other replicas' rows of this instance's group databases only: memory grows with the group, not the fleet.
        foreach (var name in rows.Where(r => r.Record.Identity?.GroupDatabaseId is not null).Select(r => r.Record.Database!).Distinct(StringComparer.OrdinalIgnoreCase).ToList())
        {
            rows.AddRange((await history.ReadAsync(null, name, cancellationToken)).Where(r => !string.Equals(r.Instance, instance, StringComparison.Ordinal)));
        }

        IEnumerable<(string, DatabaseRestore)> restores = msdbRestores is null ? [] : (await msdbRestores.ReadAsync(cancellationToken)).Select(r => (r.Instance, r.Restore));
        IReadOnlyList<ComplianceInput> inputs = FleetDatabases.WithMsdbRestores(FleetDatabases.Inputs(rows), restores)
            .Where(d => d.Replicas.Contains(instance, StringComparer.OrdinalIgnoreCase))
            .Select(d => d.GroupDatabaseId is null && byName.GetValueOrDefault(d.Database) is { } chain
                ? d with { Chain = chain, RecoveryModel = chain.RecoveryModel ?? d.RecoveryModel }
                : d)
            .ToList();
        if (drills is not null)
        {
            // The RTO rests on the last drill first (docs/fleet.md, "RTO").
            inputs = await FleetDrills.WithLastDrillsAsync(inputs, drills, cancellationToken);
        }

        var judged = Compliance.Evaluate(inputs, targets, time.GetUtcNow().UtcDateTime);
        if (replicaRoles is not null)
        {
            judged = BackupPreferenceCheck.Apply(judged, await replicaRoles.ReadAsync(cancellationToken));
        }

        metrics.RecordCompliance(instance, judged);
        foreach (var change in _changes.Observe(instance, judged))
        {
            logger.ComplianceChanged(
                change.Worse ? LogLevel.Warning : LogLevel.Information, instance, TerminalText.Line(change.Database), Kebab.Of(change.Aspect), change.From, change.To,
                change.Since is { } since ? since.ToString(" 'since' yyyy-MM-dd HH:mm", System.Globalization.CultureInfo.InvariantCulture) : string.Empty,
                TerminalText.Line(change.Evidence));
        }

        if (options?.Value.Targets is { DatabaseSeries: { } pattern } chosen)
        {
            metrics.RecordDatabases(instance, judged, pattern, chosen.MaxDatabaseSeries);
        }
    }

    /// <summary>
    /// This replica's availability group roles and backup preference (docs/fleet.md, "Backup preference"), kept in the
    /// history for `fleet`; a note (no permission, an error) is one warning per instance (event 195), and the import stands.
    /// </summary>
    private async Task ReadReplicaRolesAsync(string instance, SqlConnectionFactory server, CancellationToken cancellationToken)
    {
        if (replicaRoles is null)
        {
            return;
        }

        var read = await ReplicaRoleImport.RunAsync(replicaRoles, instance, server, time, cancellationToken);
        foreach (var note in read.Notes)
        {
            bool first;
            lock (_roleNotesLogged)
            {
                // Instances import side by side through this one object.
                first = _roleNotesLogged.Add((instance, note));
            }

            if (first)
            {
                logger.ReplicaRolesNotRead(instance, note);
            }
        }

    }

    /// <summary>
    /// msdb's full database restores of the chain's window, kept in the history so a restore no capture saw counts as one
    /// (docs/fleet.md, "Never restored"); a login that cannot read restorehistory is one warning per instance (event 209).
    /// </summary>
    private async Task ReadMsdbRestoresAsync(string instance, SqlConnectionFactory server, CancellationToken cancellationToken)
    {
        if (msdbRestores is null)
        {
            return;
        }

        var read = await MsdbRestoreImport.RunAsync(msdbRestores, instance, server, time.GetLocalNow().DateTime - TimeSpan.FromDays(ChainDays), [], cancellationToken);
        if (read.Note is { } note)
        {
            bool first;
            lock (_restoreNotesLogged)
            {
                first = _restoreNotesLogged.Add((instance, note));
            }

            if (first)
            {
                logger.MsdbRestoresNotRead(instance, note);
            }
        }
    }

    private async Task<IReadOnlyList<RestoreChainReport>> CheckChainAsync(string instance, SqlConnectionFactory server, CancellationToken cancellationToken)
    {
        IReadOnlyList<RestoreChainReport> chains;
        try
        {
            chains = await new MsdbBackupChain(server).CheckAsync(time.GetLocalNow().DateTime - TimeSpan.FromDays(ChainDays), [], cancellationToken);
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            logger.RestoreChainFailed(instance, exception.GetType().Name, ConnectionStringRedactor.RedactMessage(exception.Message));
            return [];
        }

        foreach (var chain in chains)
        {
            foreach (var gap in chain.Gaps)
            {
                if (_gapsLogged.Add((instance, chain.Database.ToUpperInvariant(), gap.FromLsn, gap.ToLsn)))
                {
                    logger.RestoreChainGap(
                        instance, TerminalText.Line(chain.Database), gap.After, gap.Before,
                        gap.FromLsn.ToString(System.Globalization.CultureInfo.InvariantCulture), gap.ToLsn.ToString(System.Globalization.CultureInfo.InvariantCulture), gap.Reason);
                }
            }
        }

        return chains;
    }

    /// <summary>
    /// Each database's restore estimate (docs/restore-chain.md, "Restore time"), with the rates of this instance's runs in
    /// the history: logged (event 192) the first time and whenever the full or differential backup it rests on changes,
    /// not with every log backup; the longest is a gauge. An estimate that cannot be made is one warning (event 193), and
    /// the import stands; an unusable history file still stops the daemon.
    /// </summary>
    private async Task EstimateRestoresAsync(string instance, SqlConnectionFactory server, CancellationToken cancellationToken)
    {
        var measured = (await history.ReadAsync(instance, null, cancellationToken)).Select(r => r.Record).ToList();
        IReadOnlyList<RestoreEstimateReport> reports;
        try
        {
            reports = await new ServerRestoreEstimate(server).EstimateAsync(time.GetLocalNow().DateTime - TimeSpan.FromDays(ChainDays), [], measured, cancellationToken);
        }
        catch (Exception exception) when (exception is not (OperationCanceledException or HistoryStoreException))
        {
            logger.RestoreEstimateFailed(instance, exception.GetType().Name, ConnectionStringRedactor.RedactMessage(exception.Message));
            return;
        }

        foreach (var report in reports)
        {
            var logged = (report.Plan.Full?.Start, report.Plan.Differential?.Start, report.Estimate?.LowSeconds is not null);
            if (_estimatesLogged.TryGetValue((instance, report.Database.ToUpperInvariant()), out var before) && before == logged)
            {
                continue;
            }

            _estimatesLogged[(instance, report.Database.ToUpperInvariant())] = logged;
            logger.RestoreEstimated(
                instance, TerminalText.Line(report.Database), RestoreEstimateText.Total(report), report.Estimate?.LowSeconds, report.Estimate?.HighSeconds,
                report.Plan.Full?.Start, report.Plan.Differential?.Start, report.Plan.Logs.Count, report.Notes.Count);
        }

        if (reports.Where(r => r.Estimate?.HighSeconds is not null).MaxBy(r => r.Estimate!.HighSeconds) is { Estimate: { LowSeconds: { } low, HighSeconds: { } high } })
        {
            metrics.RecordLongestRestoreEstimate(instance, low, high);
        }
    }
}
