using System.CommandLine;
using System.Text.Json;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history chain --server S</c>: each database's restore chain from msdb (docs/restore-chain.md), read only:
/// whole or its gaps, and the oldest moment a restore can reach.
/// </summary>
internal static class HistoryChainCommand
{
    /// <summary>The chain is checked over the last 30 days unless --since says otherwise.</summary>
    public const string DefaultSince = "30d";

    public static Command Create()
    {
        var since = new Option<string>("--since") { Description = "Backups of the last 30d, 12h... or since a date (yyyy-mm-dd), server local time.", DefaultValueFactory = _ => DefaultSince };
        var databases = OperationFilter.DatabaseOption();
        var format = new Option<string>("--format", "-f") { Description = "console (default), markdown or json.", DefaultValueFactory = _ => "console" };
        format.AcceptOnlyFromAmong("console", "markdown", "json");
        var connection = new ConnectionOptions();
        var command = new Command("chain", "Check each database's restore chain in msdb: whole or its gaps, and the oldest point it can be restored to.")
        {
            since, databases, format, CommonOptions.NoColor(),
        };
        connection.AddTo(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            if (TimePoint.Parse(parse.GetValue(since)!, DateTime.Now) is not { } from)
            {
                await Console.Error.WriteLineAsync($"backupxe: --since '{parse.GetValue(since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)");
                return ExitCodes.NothingUsable;
            }

            var wanted = OperationFilter.Names(parse.GetValue(databases));
            var json = parse.GetValue(format) == "json";
            var settings = connection.Read(parse, PasswordSource.FromConsole(), Console.Error);
            if (settings is null)
            {
                return ExitCodes.NothingUsable;
            }

            return await ServerCall.RunAsync(settings, async factory =>
            {
                var chains = await new MsdbBackupChain(factory).CheckAsync(from, wanted, cancellationToken);
                switch (parse.GetValue(format))
                {
                    case "json":
                        WriteJson(factory.Settings.Server, from, chains);
                        break;
                    case "markdown":
                        RestoreChainWriter.Markdown(Console.Out, chains, from);
                        break;
                    default:
                        RestoreChainWriter.Console(Console.Out, chains, from);
                        break;
                }

                return ExitCodes.Success;
            }, json: json);
        });
        return command;
    }

    private static void WriteJson(string server, DateTime since, IReadOnlyList<Core.History.RestoreChainReport> chains)
    {
        var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteString("server", server);
            json.WriteString("since", since.ToString("yyyy-MM-dd'T'HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture));
            RestoreChainWriter.Json(json, "restoreChains", chains);
            json.WriteEndObject();
        }

        Console.Out.WriteLine(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }
}
