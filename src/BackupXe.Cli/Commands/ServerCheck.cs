using System.Text.Json;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Restores;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;
using BackupXe.SqlServer.Preflight;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe check</c>: the preflight, then the restore chains and estimates from msdb, one line per
/// check on <paramref name="console"/> (or one JSON object); read only.
/// </summary>
internal sealed class ServerCheck(CliConsole console)
{
    public async Task<int> RunAsync(CheckSettings settings, CancellationToken cancellationToken)
    {
        var session = new CaptureSessionSettings(settings.SessionName);
        return await ServerCall.RunAsync(console, settings.Connection, session, async factory =>
        {
            var checks = await new ServerPreflight(factory, session).RunAsync(cancellationToken);
            var since = DateTime.Now.AddDays(-ChainDays);
            var (chains, chainProblem) = await ChainsAsync(factory, since, cancellationToken);
            var (estimates, estimateProblem) = await EstimatesAsync(factory, since, cancellationToken);
            if (settings.Format == "json")
            {
                WriteJson(factory.Settings.Server, checks, (chains, chainProblem), (estimates, estimateProblem));
            }
            else
            {
                WriteLines(checks);
                console.Out.WriteLine();
                if (chains is null)
                {
                    console.Out.WriteLine($"Restore chain: could not check: {chainProblem}");
                }
                else
                {
                    RestoreChainWriter.Console(console.Out, chains, since);
                }

                console.Out.WriteLine();
                if (estimates is null)
                {
                    console.Out.WriteLine($"Restore estimate: could not estimate: {estimateProblem}");
                }
                else
                {
                    RestoreEstimateWriter.Summary(console.Out, estimates, since);
                }
            }

            return checks.Any(c => c.Outcome == PreflightOutcome.Fail) ? CheckCommand.ChecksFailed : ExitCodes.Success;
        }, json: settings.Format == "json");
    }

    /// <summary>How far back check reads msdb for the restore chain (history chain --since reads any span).</summary>
    private const int ChainDays = 30;

    /// <summary>The chains, or why they could not be read (a login without SELECT on msdb.dbo.backupset): one line, the check goes on.</summary>
    private static async Task<(IReadOnlyList<RestoreChainReport>? Chains, string? Problem)> ChainsAsync(SqlConnectionFactory factory, DateTime since, CancellationToken cancellationToken)
    {
        try
        {
            return (await new MsdbBackupChain(factory).CheckAsync(since, [], cancellationToken), null);
        }
        catch (System.Data.Common.DbException failure)
        {
            return (null, ConnectionStringRedactor.RedactMessage(failure.Message));
        }
    }

    /// <summary>Each database's restore estimate from msdb's backups (no history file), or why not: one line, the check goes on.</summary>
    private static async Task<(IReadOnlyList<RestoreEstimateReport>? Estimates, string? Problem)> EstimatesAsync(SqlConnectionFactory factory, DateTime since, CancellationToken cancellationToken)
    {
        try
        {
            return (await new ServerRestoreEstimate(factory).EstimateAsync(since, [], [], cancellationToken), null);
        }
        catch (System.Data.Common.DbException failure)
        {
            return (null, ConnectionStringRedactor.RedactMessage(failure.Message));
        }
    }

    private void WriteLines(IReadOnlyList<PreflightCheck> checks)
    {
        var width = checks.Max(c => c.Name.Length);
        foreach (var check in checks)
        {
            console.Out.WriteLine($"{Label(check.Outcome)}  {check.Name.PadRight(width)}  {check.Finding}");
            if (check.Fix is not null)
            {
                console.Out.WriteLine($"      {new string(' ', width)}  fix: {check.Fix}");
            }
        }
    }

    /// <summary>The preflight as its JSON contract (docs/json-schema.md), one object on standard output.</summary>
    internal void WriteJson(
        string server, IReadOnlyList<PreflightCheck> checks,
        (IReadOnlyList<RestoreChainReport>? Chains, string? Problem) chain, (IReadOnlyList<RestoreEstimateReport>? Estimates, string? Problem) estimate)
    {
        var (chains, chainProblem) = chain;
        var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteString("server", server);
            json.WriteNumber("failed", checks.Count(c => c.Outcome == PreflightOutcome.Fail));
            json.WriteNumber("warnings", checks.Count(c => c.Outcome == PreflightOutcome.Warn));
            json.WriteStartArray("checks");
            foreach (var check in checks)
            {
                json.WriteStartObject();
                json.WriteString("name", check.Name);
                json.WriteString("outcome", Label(check.Outcome).Trim().ToLowerInvariant());
                json.WriteString("finding", check.Finding);
                if (check.Fix is null)
                {
                    json.WriteNull("fix");
                }
                else
                {
                    json.WriteString("fix", check.Fix);
                }

                json.WriteEndObject();
            }

            json.WriteEndArray();
            if (chains is null)
            {
                json.WriteNull("restoreChains");
            }
            else
            {
                RestoreChainWriter.Json(json, "restoreChains", chains);
            }

            json.WriteString("restoreChainError", chainProblem);
            if (estimate.Estimates is null)
            {
                json.WriteNull("restoreEstimates");
            }
            else
            {
                RestoreEstimateWriter.Json(json, "restoreEstimates", estimate.Estimates);
            }

            json.WriteString("restoreEstimateError", estimate.Problem);
            json.WriteEndObject();
        }

        console.Out.WriteLine(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }

    private static string Label(PreflightOutcome outcome) => outcome switch
    {
        PreflightOutcome.Pass => "PASS",
        PreflightOutcome.Warn => "WARN",
        _ => "FAIL",
    };
}
