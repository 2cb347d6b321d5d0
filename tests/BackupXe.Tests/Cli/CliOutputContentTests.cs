using Xunit;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Cli;

/// <summary>
/// What the CLI's build is made of, which is what its publish, its tool package and build/release.sh's archives hold:
/// the history library it shares with the daemon, never the daemon's assembly, launcher or settings.
/// </summary>
public sealed class CliOutputContentTests
{
    public static readonly string[] DaemonOnlyFiles =
    [
        "BackupXe.Worker", "BackupXe.Worker.exe", "BackupXe.Worker.dll", "BackupXe.Worker.runtimeconfig.json", "BackupXe.Worker.deps.json",
        "appsettings.json", "appsettings.schema.json",
    ];

    [Fact]
    public void The_cli_build_depends_on_the_history_library_and_not_on_the_daemon()
    {
        // Given the CLI's dependency manifest in its own output folder, of the configuration these tests were built in
        // (the manifest, not the folder's files: a folder built before the daemon left the CLI keeps stale files)
        var deps = File.ReadAllText(Path.Combine(CliBuildFolder(), "backupxe.deps.json"));

        // When / Then
        Assert.Contains("\"BackupXe.History\"", deps, StringComparison.Ordinal);
        Assert.DoesNotContain("BackupXe.Worker", deps, StringComparison.Ordinal);
        Assert.DoesNotContain("Serilog", deps, StringComparison.Ordinal);
    }

    /// <summary>src/BackupXe.Cli/bin/CONFIGURATION/TFM, found from this test assembly's bin/CONFIGURATION/TFM.</summary>
    private static string CliBuildFolder()
    {
        var testOutput = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var framework = testOutput.Name;
        var configuration = testOutput.Parent!.Name;
        return Path.Combine(Repository.Root, "src", "BackupXe.Cli", "bin", configuration, framework);
    }
}
