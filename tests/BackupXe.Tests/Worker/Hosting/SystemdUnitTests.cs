using System.Diagnostics;
using BackupXe.Tests.Support;
using BackupXe.Worker;
using BackupXe.Worker.Hosting;
using Xunit;

namespace BackupXe.Tests.Worker.Hosting;

/// <summary>
/// The shipped unit file, deploy/systemd/backupxe.service, checked by systemd's own offline tools where they are
/// installed: it parses, it is Type=notify, its restart policy matches the exit codes, and its hardening keeps
/// systemd's exposure score low. (PID 1 here is not systemd, so the unit is not started; SystemdNotifyTests
/// holds the worker to the notify protocol.)
/// </summary>
public sealed class SystemdUnitTests : IDisposable
{
    private static readonly string Unit = Path.Combine(Repository.Root, "deploy", "systemd", "backupxe.service");
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-unit-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public void The_unit_is_notify_and_does_not_restart_on_a_configuration_error()
    {
        var lines = File.ReadAllLines(Unit);

        Assert.Contains("Type=notify", lines);
        Assert.Contains("Restart=on-failure", lines);
        Assert.Contains($"RestartPreventExitStatus={ExitCodes.InvalidConfiguration}", lines);
        var stopSeconds = int.Parse(lines.Single(line => line.StartsWith("TimeoutStopSec=", StringComparison.Ordinal))["TimeoutStopSec=".Length..], System.Globalization.CultureInfo.InvariantCulture);
        Assert.True(ServiceHosting.ShutdownTimeout < TimeSpan.FromSeconds(stopSeconds), "the worker's own shutdown deadline must come before systemd's SIGKILL");
        Assert.Contains("ProtectSystem=strict", lines);
        Assert.Contains("NoNewPrivileges=yes", lines);
        Assert.Contains("PrivateTmp=yes", lines);
    }

    [Fact]
    public async Task Systemd_accepts_the_unit_and_rates_its_exposure_low()
    {
        Skipped.Unless(File.Exists("/usr/bin/systemd-analyze"), "systemd-analyze is not installed", "install systemd (Debian: apt-get install systemd), which provides /usr/bin/systemd-analyze");

        // ExecStart must name an executable that exists for verify to pass; the published worker is not here.
        var copy = Path.Combine(_folder, "backupxe.service");
        await File.WriteAllLinesAsync(copy, File.ReadAllLines(Unit)
            .Select(line => line.StartsWith("ExecStart=", StringComparison.Ordinal) ? "ExecStart=/bin/true" : line));

        var verify = await RunAsync("verify", copy);
        Assert.True(verify.ExitCode == 0, verify.Output);

        // 0 (locked down) to 100 (unprotected) in tenths of systemd's printed score: "1.3 OK" is 13.
        var security = await RunAsync("security", "--offline=true", "--threshold=20", copy);
        Assert.True(security.ExitCode == 0, security.Output);
    }

    private static async Task<(int ExitCode, string Output)> RunAsync(params string[] arguments)
    {
        var start = new ProcessStartInfo("/usr/bin/systemd-analyze")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        return (process.ExitCode, await output + await error);
    }
}
