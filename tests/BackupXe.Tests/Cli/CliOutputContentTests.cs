using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// What the CLI's build leaves beside it, which is what its publish, its tool package and build/release.sh's archives
/// are made of: the daemon's project is referenced as a library, and its launcher (which cannot start there), its
/// runtime and dependency files and its settings must not come with it.
/// </summary>
public sealed class CliOutputContentTests
{
    public static readonly string[] DaemonOnlyFiles =
    [
        "BackupXe.Worker", "BackupXe.Worker.exe", "BackupXe.Worker.runtimeconfig.json", "BackupXe.Worker.deps.json",
        "appsettings.json", "appsettings.schema.json",
    ];

    [Fact]
    public void The_cli_build_folder_holds_the_daemons_library_but_not_its_launcher_or_settings()
    {
        // Given the CLI project's own output folder, of the configuration these tests were built in
        var folder = CliBuildFolder();

        // When / Then
        Assert.True(File.Exists(Path.Combine(folder, "backupxe.dll")), folder);
        Assert.True(File.Exists(Path.Combine(folder, "BackupXe.Worker.dll")), "the history code the CLI calls");
        Assert.DoesNotContain(DaemonOnlyFiles, name => File.Exists(Path.Combine(folder, name)));
    }

    /// <summary>src/BackupXe.Cli/bin/CONFIGURATION/TFM, found from this test assembly's bin/CONFIGURATION/TFM.</summary>
    private static string CliBuildFolder()
    {
        var testOutput = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var framework = testOutput.Name;
        var configuration = testOutput.Parent!.Name;
        var root = testOutput;
        while (root is not null && !File.Exists(Path.Combine(root.FullName, "BackupXe.sln")))
        {
            root = root.Parent;
        }

        Assert.NotNull(root);
        return Path.Combine(root.FullName, "src", "BackupXe.Cli", "bin", configuration, framework);
    }
}
