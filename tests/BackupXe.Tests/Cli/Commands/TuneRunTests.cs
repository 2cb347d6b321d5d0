using BackupXe.Cli.Commands;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer.Client;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>The tune runner on settings built by hand: a command line's problems stop it before any connection is read.</summary>
public sealed class TuneRunTests
{
    [Fact]
    public async Task Each_problem_is_one_line_and_no_connection_or_history_is_touched()
    {
        var history = Path.Combine(Path.GetTempPath(), $"backupxe-tune-run-{Guid.NewGuid():N}.db");
        var settings = new TuneSettings
        {
            Request = new TuneRequest("Sales", ["/var/opt/mssql/trials"], TuneRequest.DefaultMemoryBudgetBytes, TuneRequest.DefaultTimeBudget, TuneRequest.DefaultWindow, "0badc0de"),
            Problems = ["--free-space-mb names '/t' twice.", "--max-trial-space must be a whole number"],
            Format = "console",
            Execute = true,
            HistoryFile = history,
            Connection = new ServerConnection("sql01", false, _ => throw new InvalidOperationException("the connection was read")),
        };
        var output = new StringWriter();
        var error = new StringWriter();

        var exit = await new TuneRun(BackupXe.Tests.Cli.CliRun.Captured(output, error)).RunAsync(settings, CancellationToken.None);

        Assert.Equal(1, exit);
        Assert.Equal(
            ["backupxe: --free-space-mb names '/t' twice.", "backupxe: --max-trial-space must be a whole number"],
            error.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
        Assert.Empty(output.ToString());
        Assert.False(File.Exists(history));
    }
}
