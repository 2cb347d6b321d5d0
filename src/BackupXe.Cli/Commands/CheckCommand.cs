using System.CommandLine;
using System.Text.Json;
using BackupXe.Cli.Analysis;
using BackupXe.SqlServer;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe check --server S</c>: the preflight a DBA runs first. One line per check (pass / warn / fail) with
/// the fix; read only. Exit code 0 when nothing failed, 1 when the server could not be reached or the command
/// line was wrong, 2 when at least one check failed.
/// </summary>
public static class CheckCommand
{
    /// <summary>The preflight ran and at least one check failed.</summary>
    public const int ChecksFailed = 2;

    public static Command Create()
    {
        var connection = new ConnectionOptions();
        var format = new Option<string>("--format", "-f") { Description = "console (default) or json.", DefaultValueFactory = _ => "console" };
        format.AcceptOnlyFromAmong("console", "json");
        var sessionName = new Option<string>("--session-name") { Description = "Capture session to look for.", DefaultValueFactory = _ => SessionName.Default };
        var command = new Command("check", "Preflight a server: version, permissions, session, events, trace flags, compression, IFI, memory, msdb history.") { format, sessionName, CommonOptions.NoColor() };
        connection.AddTo(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var session = new CaptureSessionSettings(parse.GetValue(sessionName)!);
            return await ServerCall.RunAsync(parse, connection, session, async factory =>
            {
                var checks = await new ServerPreflight(factory, session).RunAsync(cancellationToken);
                if (parse.GetValue(format) == "json")
                {
                    WriteJson(factory.Settings.Server, checks);
                }
                else
                {
                    WriteLines(checks);
                }

                return checks.Any(c => c.Outcome == PreflightOutcome.Fail) ? ChecksFailed : ExitCodes.Success;
            }, json: parse.GetValue(format) == "json");
        });
        return command;
    }

    private static void WriteLines(IReadOnlyList<PreflightCheck> checks)
    {
        var width = checks.Max(c => c.Name.Length);
        foreach (var check in checks)
        {
            Console.Out.WriteLine($"{Label(check.Outcome)}  {check.Name.PadRight(width)}  {check.Finding}");
            if (check.Fix is not null)
            {
                Console.Out.WriteLine($"      {new string(' ', width)}  fix: {check.Fix}");
            }
        }
    }

    private static void WriteJson(string server, IReadOnlyList<PreflightCheck> checks)
    {
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
            json.WriteEndObject();
        }

        Console.Out.WriteLine(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }

    private static string Label(PreflightOutcome outcome) => outcome switch
    {
        PreflightOutcome.Pass => "PASS",
        PreflightOutcome.Warn => "WARN",
        _ => "FAIL",
    };
}
