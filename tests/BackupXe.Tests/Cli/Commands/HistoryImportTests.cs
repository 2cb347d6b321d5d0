using BackupXe.Cli.Commands;
using BackupXe.SqlServer.Client;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>The history import runner on settings built by hand, writing to a console of its own.</summary>
public sealed class HistoryImportTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-history-import-run-").FullName;

    /// <summary>A connection that fails the test when read: files alone need no server.</summary>
    private static readonly ServerConnection NoServer = new(null, false, _ => throw new InvalidOperationException("the connection was read"));

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    private async Task<CliRun> RunAsync(HistoryImportSettings settings)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await new HistoryImport(CliRun.Captured(output, error)).RunAsync(settings, CancellationToken.None);
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    [Fact]
    public async Task A_problem_is_said_and_no_history_file_is_created()
    {
        var db = Path.Combine(_folder, "history.db");

        var run = await RunAsync(new HistoryImportSettings { HistoryPath = db, Connection = NoServer, Problems = ["history import needs files, --server, or both"] });

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("backupxe: history import needs files, --server, or both", run.Error.TrimEnd());
        Assert.False(File.Exists(db));
    }

    [Fact]
    public async Task A_job_output_file_is_imported_with_the_databases_not_asked_for_left_out()
    {
        var db = Path.Combine(_folder, "history.db");
        var output = new OlaJobOutput();
        output.Command(new DateTime(2024, 5, 1, 1, 0, 0), TimeSpan.FromSeconds(41), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales.bak' WITH CHECKSUM", pages: 1_310_720, engineSeconds: 40);
        output.Command(new DateTime(2024, 5, 1, 2, 0, 0), TimeSpan.FromSeconds(11), "BACKUP DATABASE [Orders] TO DISK = N'X:\\b\\Orders.bak' WITH CHECKSUM", pages: 131_072, engineSeconds: 10);
        var file = output.WriteTo(_folder, "DatabaseBackup.txt");

        var run = await RunAsync(new HistoryImportSettings
        {
            HistoryPath = db,
            Files = [file],
            Databases = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "Sales" },
            Connection = NoServer,
        });

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal($"{file} (ola-output, PROD01): 1 operations (1 of other databases left out): 1 added, 0 merged with known ones, 0 already there", run.Output.TrimEnd());
    }

    [Fact]
    public async Task The_instance_of_the_settings_names_the_runs_instead_of_the_files_header()
    {
        var db = Path.Combine(_folder, "history.db");
        var file = new OlaJobOutput().Command(new DateTime(2024, 5, 1, 1, 0, 0), TimeSpan.FromSeconds(41), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales.bak'", pages: 1_310_720, engineSeconds: 40)
            .WriteTo(_folder, "DatabaseBackup.txt");

        var run = await RunAsync(new HistoryImportSettings { HistoryPath = db, Files = [file], Instance = "PROD02", Connection = NoServer });

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("PROD02): 1 operations: 1 added", run.Output, StringComparison.Ordinal);
    }
}
