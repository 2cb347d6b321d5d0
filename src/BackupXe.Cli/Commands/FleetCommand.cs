using System.CommandLine;
using System.Text.Json;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe fleet</c>: every database of the history against its RPO and RTO targets, worst first (docs/fleet.md,
/// docs/commands/fleet.md). Read-only: the history file is never created or altered.
/// </summary>
internal static class FleetCommand
{
    public static Command Create(CliConsole console)
    {
        var history = new Option<string?>("--history")
        {
            Description = $"The history file (the daemon's SQLite file); unset: the daemon's, {DaemonHistory.Variable}, else {SqliteHistoryStore.DefaultPath} here, else the service's data folder.",
        };
        var settings = new Option<string?>("--settings")
        {
            Description = "The daemon's appsettings.json whose BackupXe:Targets the databases are judged against; unset: an RPO target of a day, no RTO target.",
        };
        var format = new Option<string>("--format", "-f") { Description = "console (default), json or html (a self-contained page; redirect it to a file).", DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json", "html");
        var command = new Command("fleet", "Every database in the history against its RPO and RTO targets, worst first: last backups, chain, restores.")
        {
            history, settings, format, CommonOptions.NoColor(),
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var chosen = parse.GetValue(format)!;
            if (chosen == "html" && !console.IsOutputRedirected)
            {
                await console.Error.WriteLineAsync("backupxe: --format html writes a page, not terminal text: redirect it to a file (> fleet.html).");
                return ExitCodes.NothingUsable;
            }

            var targets = RecoveryTargets.Standard;
            if (parse.GetValue(settings) is { } settingsFile)
            {
                var (read, problems) = ReadTargets(settingsFile);
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

            var file = parse.GetValue(history) ?? DaemonHistory.Path();
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

            var fleet = BackupPreferenceCheck.Apply(Compliance.Evaluate(inputs, targets, now), roles);
            var page = new FleetPage(now, fleet);
            await console.Out.WriteAsync(chosen switch
            {
                "json" => FleetWriter.Json(page),
                "html" => FleetWriter.Html(page),
                _ => FleetWriter.Console(page),
            });
            return reader.UnreadableRows > 0 ? ExitCodes.Partial : ExitCodes.Success;
        });
        return command;
    }

    /// <summary>
    /// BackupXe:Targets of a daemon's settings file, checked as the daemon checks them (the same lines); null and the
    /// problems when it cannot be read or is wrong. A file without the section gives the standard targets.
    /// </summary>
    internal static (RecoveryTargets? Targets, IReadOnlyList<string> Problems) ReadTargets(string path)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(File.ReadAllText(path), new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or JsonException)
        {
            return (null, [$"cannot be read: {exception.Message}"]);
        }

        using (document)
        {
            if (!Find(document.RootElement, "BackupXe", out var section) || !Find(section, "Targets", out var targets))
            {
                return (RecoveryTargets.Standard, []);
            }

            const string Key = "BackupXe:Targets";
            var problems = new List<string>();
            var rpo = Number(targets, "RpoMinutes", Key, problems) ?? RecoveryTargets.StandardRpo.TotalMinutes;
            var rto = Number(targets, "RtoMinutes", Key, problems) ?? 0;
            var rules = new List<(string?, string?, string?, double, double)>();
            if (Find(targets, "Rules", out var list))
            {
                if (list.ValueKind != JsonValueKind.Array)
                {
                    problems.Add($"{Key}:Rules must be an array.");
                }
                else
                {
                    var index = 0;
                    foreach (var rule in list.EnumerateArray())
                    {
                        var at = $"{Key}:Rules:{index++}";
                        rules.Add((Text(rule, "Instance", at, problems), Text(rule, "Database", at, problems), Text(rule, "RecoveryModel", at, problems),
                            Number(rule, "RpoMinutes", at, problems) ?? 0, Number(rule, "RtoMinutes", at, problems) ?? 0));
                    }
                }
            }

            problems.AddRange(RecoveryTargets.Problems(Key, rpo, rto, rules));
            return problems.Count > 0 ? (null, problems) : (RecoveryTargets.FromMinutes(rpo, rto, rules), []);
        }
    }

    // Configuration keys are case-insensitive, as the daemon's binder reads them.
    private static bool Find(JsonElement element, string name, out JsonElement value)
    {
        if (element.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in element.EnumerateObject())
            {
                if (string.Equals(property.Name, name, StringComparison.OrdinalIgnoreCase))
                {
                    value = property.Value;
                    return true;
                }
            }
        }

        value = default;
        return false;
    }

    private static double? Number(JsonElement element, string name, string at, List<string> problems)
    {
        if (!Find(element, name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        if (value.ValueKind == JsonValueKind.Number && value.TryGetDouble(out var number))
        {
            return number;
        }

        problems.Add($"{at}:{name} must be a number of minutes.");
        return null;
    }

    private static string? Text(JsonElement element, string name, string at, List<string> problems)
    {
        if (!Find(element, name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        if (value.ValueKind == JsonValueKind.String)
        {
            return value.GetString();
        }

        problems.Add($"{at}:{name} must be a string.");
        return null;
    }
}
