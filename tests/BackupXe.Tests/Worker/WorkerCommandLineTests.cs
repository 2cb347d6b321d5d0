using BackupXe.Tests.Hostile;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>The worker's own command line: --help and --version answer and exit 0; a folder without settings is named.</summary>
public sealed class WorkerCommandLineTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-worker-cli-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public async Task Help_says_what_the_worker_is_its_options_and_exit_codes()
    {
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--help");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("--contentRoot FOLDER", run.Output);
        Assert.Contains("Exit codes: 0 stopped normally", run.Output);
        Assert.Empty(run.Error);
    }

    [Fact]
    public async Task Version_prints_the_version_and_the_commit()
    {
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--version");

        Assert.Equal(0, run.ExitCode);
        Assert.Matches(@"^\d+\.\d+\.\d+", run.Output);
    }

    [Fact]
    public async Task Version_is_the_product_version_the_cli_prints()
    {
        // Given / When: the daemon and the CLI of one build
        var worker = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--version");
        var cli = await ChildProcess.RunAsync(ChildProcess.Cli, _folder, TimeSpan.FromSeconds(60), "--version");

        // Then one version (and commit) for both: a DBA compares it with a release's
        Assert.Equal((0, 0), (worker.ExitCode, cli.ExitCode));
        Assert.Equal(cli.Output.Trim(), worker.Output.Trim());
    }

    [Fact]
    public async Task Started_in_a_folder_without_settings_it_names_the_folder_and_exits_2()
    {
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60));

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"no appsettings.json in {_folder}", run.Error);
        Assert.DoesNotContain("Instances", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error);
    }

    [Fact]
    public async Task A_content_root_that_does_not_exist_is_one_line_and_exit_2()
    {
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--contentRoot", "no-such-folder");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"the content root '{Path.Combine(_folder, "no-such-folder")}' does not exist", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error);
    }

    [Fact]
    public async Task A_relative_content_root_is_read_from_the_working_directory()
    {
        // Given the demo configuration's shape in a folder below the working directory
        Directory.CreateDirectory(Path.Combine(_folder, "demo"));
        await File.WriteAllTextAsync(Path.Combine(_folder, "demo", "appsettings.json"), "{ \"BackupXe\": { \"Instances\": [ ] } }");

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--contentRoot", "demo");

        // Then its file was read (and refused for having no instance), not looked for beside the worker's binaries
        Assert.Equal(2, run.ExitCode);
        Assert.Contains("Instances is empty", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error);
    }
}
