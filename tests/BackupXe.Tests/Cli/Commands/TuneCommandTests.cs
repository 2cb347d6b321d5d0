using System.CommandLine;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using BackupXe.Cli.Commands;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.Tests.Tuning;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>
/// <c>backupxe tune</c> end to end against the simulated server: a dry run by default, --execute to run, the report's
/// statement and Ola parameters, usage errors in one line. A loopback listener answers the reachability probe; no
/// query reaches it, the simulated server stands in for the server.
/// </summary>
public sealed class TuneCommandTests : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);

    public TuneCommandTests() => _listener.Start();

    private string Server => $"127.0.0.1,{((IPEndPoint)_listener.LocalEndpoint).Port}";

    public void Dispose() => _listener.Stop();

    [Fact]
    public async Task Without_execute_it_prints_the_plan_and_runs_nothing()
    {
        var (model, directories) = Shapes.Get("buffer-count-table");
        var server = new SimulatedServer(model, directories);

        var run = await RunAsync(_ => server, "tune", "--server", Server, "--database", "Sales", "--to", directories[0]);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("Dry run: nothing ran. Add --execute to run these trials.", run.Output, StringComparison.Ordinal);
        Assert.Contains("read ceiling: COPY_ONLY to NUL, NO_COMPRESSION", run.Output, StringComparison.Ordinal);
        Assert.Contains("buffer memory: 1024 MB (a hard limit", run.Output, StringComparison.Ordinal);
        Assert.Contains("msdb backup history", run.Output, StringComparison.Ordinal);
        Assert.Empty(server.Statements);
    }

    [Fact]
    public async Task With_execute_it_runs_the_trials_and_prints_the_table_the_statement_and_ola_parameters()
    {
        var (model, directories) = Shapes.Get("striping");
        var server = new SimulatedServer(model, directories);

        var run = await RunAsync(_ => server, "tune", "--server", Server, "--database", "Sales", "--to", directories[0], "--to", directories[1], "--execute");

        Assert.Equal(0, run.ExitCode);
        Assert.NotEmpty(server.Statements);
        Assert.Empty(server.Files);
        Assert.Contains("x read ceiling", run.Output, StringComparison.Ordinal);
        Assert.Contains("Recommended BACKUP statement", run.Output, StringComparison.Ordinal);
        Assert.Contains("EXECUTE dbo.DatabaseBackup", run.Output, StringComparison.Ordinal);
        Assert.Contains("@NumberOfFiles = ", run.Output, StringComparison.Ordinal);
        Assert.Contains("Which side limits: target", run.Output, StringComparison.Ordinal);
        Assert.Contains("diskspd.exe -c10G -b4096K", run.Output, StringComparison.Ordinal);
        Assert.Contains("Each trial wrote a row to msdb backup history", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_json_result_carries_a_statement_and_an_ola_command_that_parse()
    {
        var (model, directories) = Shapes.Get("compression-cpu");
        var server = new SimulatedServer(model, directories);

        var run = await RunAsync(_ => server, "tune", "-S", Server, "-d", "Sales", "--to", directories[0], "--execute", "--format", "json");

        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        var sql = json.RootElement.GetProperty("recommendedSql").GetString()!;
        var ola = json.RootElement.GetProperty("olaHallengren").GetString()!;
        Assert.DoesNotContain("COPY_ONLY", sql, StringComparison.Ordinal);
        Assert.Contains("NO_COMPRESSION", sql, StringComparison.Ordinal);
        Assert.Contains("@Compress = 'N'", ola, StringComparison.Ordinal);
        foreach (var script in new[] { sql, ola })
        {
            new TSql150Parser(true).Parse(new StringReader(script), out var errors);
            Assert.True(errors.Count == 0, script + "\n" + string.Join("; ", errors.Select(e => e.Message)));
        }

        Assert.True(json.RootElement.GetProperty("trials").GetArrayLength() >= 4);
        Assert.Equal("source", json.RootElement.GetProperty("limitingSide").GetString());
    }

    [Fact]
    public async Task Execute_against_a_server_that_cannot_run_trials_refuses_after_the_plan()
    {
        var (model, directories) = Shapes.Get("read-bound");
        var server = new SimulatedServer(model, directories);

        var run = await RunAsync(_ => new PlanOnly(server), "tune", "--server", Server, "--database", "Sales", "--to", directories[0], "--execute");

        Assert.Equal(TuneCommand.Refused, run.ExitCode);
        Assert.Contains("--execute needs a server that can run trials", run.Error, StringComparison.Ordinal);
        Assert.Empty(server.Statements);
    }

    [Theory]
    [InlineData("--time-budget", "30x", "--time-budget must be a whole number of seconds, minutes or hours")]
    [InlineData("--time-budget", "20h5", "--time-budget must be a whole number")]
    [InlineData("--window", "2s", "--window must be at least 5s")]
    [InlineData("--to", "NUL", "--to must name a directory on the server")]
    [InlineData("--memory-budget-mb", "8", "--memory-budget-mb must be between 16 and 65536")]
    public async Task A_bad_value_is_one_line_and_exit_code_1(string option, string value, string message)
    {
        var (model, directories) = Shapes.Get("read-bound");
        var server = new SimulatedServer(model, directories);
        string[] args = option == "--to"
            ? ["tune", "--server", Server, "--database", "Sales", "--to", value]
            : ["tune", "--server", Server, "--database", "Sales", "--to", directories[0], option, value];

        var run = await RunAsync(_ => server, args);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains(message, run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", run.Error, StringComparison.Ordinal);
        Assert.Empty(server.Statements);
    }

    private static async Task<CliRun> RunAsync(Func<SqlConnectionFactory, ITuningServer> servers, params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var console = CliRun.Captured(output, error);
        var root = new RootCommand { TuneCommand.Create(console, servers) };
        var exit = await root.Parse(args).InvokeAsync(BackupXe.Cli.Program.Invocation(console));
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    /// <summary>A server that answers the plan's questions but cannot run a trial, as the live one in this version.</summary>
    private sealed class PlanOnly(ITuningServer inner) : ITuningServer
    {
        public Task<TuningFacts> DescribeAsync(string database, CancellationToken cancellationToken) => inner.DescribeAsync(database, cancellationToken);

        public Task<bool> BackupOrRestoreRunningAsync(string database, CancellationToken cancellationToken) => inner.BackupOrRestoreRunningAsync(database, cancellationToken);
    }
}
