using System.CommandLine;
using System.Text.Json;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history restore-estimate --server S</c>: how long restoring each database would take now, phase by phase,
/// from the chain msdb shows, the file sizes, the Instant File Initialization state and the rates measured in the
/// history or in msdb's backups (docs/restore-chain.md, "Restore time"). Read only; the history file too.
/// </summary>
internal static class HistoryRestoreEstimateCommand
{
    public static Command Create()
    {
        var since = new Option<string>("--since") { Description = "Backups of the last 30d, 12h... or since a date (yyyy-mm-dd), server local time: the span the chain is picked from.", DefaultValueFactory = _ => HistoryChainCommand.DefaultSince };
        var databases = OperationFilter.DatabaseOption();
        var format = new Option<string>("--format", "-f") { Description = "console (default), markdown or json.", DefaultValueFactory = _ => "console" };
        format.AcceptOnlyFromAmong("console", "markdown", "json");
        var history = new HistoryOptions("The history file (the daemon's SQLite file) whose restores, log restores and backups of each database give the measured rates; --history alone reads the daemon's default. Without it, msdb's backups give the rates.");
        var connection = new ConnectionOptions();
        var command = new Command("restore-estimate", "Estimate how long restoring each database from its msdb chain would take, phase by phase, with what was measured and what assumed.")
        {
            since, databases, format, CommonOptions.NoColor(),
        };
        history.AddTo(command);
        connection.AddTo(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            if (TimePoint.Parse(parse.GetValue(since)!, DateTime.Now) is not { } from)
            {
                await Console.Error.WriteLineAsync($"backupxe: --since '{parse.GetValue(since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)");
                return ExitCodes.NothingUsable;
            }

            var (records, problem) = await history.ReadAsync(parse, cancellationToken);
            if (problem is not null)
            {
                await Console.Error.WriteLineAsync(problem);
                return ExitCodes.NothingUsable;
            }

            var operations = await OperationsAsync(records, history.InstanceOf(parse));
            var wanted = OperationFilter.Names(parse.GetValue(databases));
            var json = parse.GetValue(format) == "json";
            var settings = connection.Read(parse, PasswordSource.FromConsole(), Console.Error);
            if (settings is null)
            {
                return ExitCodes.NothingUsable;
            }

            return await ServerCall.RunAsync(settings, async factory =>
            {
                var estimates = await new ServerRestoreEstimate(factory).EstimateAsync(from, wanted, operations, cancellationToken);
                switch (parse.GetValue(format))
                {
                    case "json":
                        WriteJson(factory.Settings.Server, from, estimates);
                        break;
                    case "markdown":
                        RestoreEstimateWriter.Markdown(Console.Out, estimates, from);
                        break;
                    default:
                        RestoreEstimateWriter.Console(Console.Out, estimates, from);
                        break;
                }

                return ExitCodes.Success;
            }, json: json);
        });
        return command;
    }

    /// <summary>
    /// The history's operations the rates are measured on: the named instance's, else per database those of the one
    /// instance holding it; a database on several instances is left out with one line, as the comparison does.
    /// </summary>
    private static async Task<IReadOnlyList<HistoryOperation>> OperationsAsync(IReadOnlyList<InstanceOperation>? records, string? instance)
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
                await Console.Error.WriteLineAsync($"backupxe: the history holds {TerminalText.Line(database.Key)} on {instances.Count} instances ({string.Join(", ", instances.Select(TerminalText.Line))}): its runs are left out of the rates; name one with --instance");
            }
        }

        return chosen;
    }

    private static void WriteJson(string server, DateTime since, IReadOnlyList<RestoreEstimateReport> estimates)
    {
        var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteString("server", server);
            json.WriteString("since", since.ToString("yyyy-MM-dd'T'HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture));
            RestoreEstimateWriter.Json(json, "restoreEstimates", estimates);
            json.WriteEndObject();
        }

        Console.Out.WriteLine(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }
}
