using System.Diagnostics;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A rollover pattern whose set holds, besides real .xel files, what a copy of a session's folder or a hurried
/// user leaves there: an empty member (copied right after a rollover), random bytes, XML saved under a .xel name,
/// and a named pipe. Each is named and skipped, the real members are read, and nothing waits on the pipe.
/// </summary>
public sealed class XelRolloverTests : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "backupxe-tests", Guid.NewGuid().ToString("N"));

    public XelRolloverTests() => Directory.CreateDirectory(_folder);

    [Fact]
    public async Task Given_a_rollover_set_with_bad_members_when_read_then_each_is_named_and_the_good_members_are_read()
    {
        // Given
        File.Copy(Fixture.TestXel, Member(1));
        await File.WriteAllBytesAsync(Member(2), []);
        // Seeded: random bytes that happen to open with '<' or a byte-order mark read as another format, one run in a hundred.
        var noise = new byte[5000];
        new Random(31).NextBytes(noise);
        await File.WriteAllBytesAsync(Member(3), noise);
        File.Copy(CliRun.Sample("buffer-starved-backup.xml"), Member(4));
        var pipe = !OperatingSystem.IsWindows() && Process.Start("mkfifo", Member(5)) is { } mkfifo && await Exited(mkfifo);
        File.Copy(Fixture.TestXel, Member(6));
        var single = await CliRun.RunAsync("events", Fixture.TestXel, "--format", "csv");

        // When
        var run = await CliRun.RunAsync("events", Path.Combine(_folder, "set_0_*.xel"), "--format", "csv").WaitAsync(TimeSpan.FromSeconds(60));

        // Then
        Assert.True(run.ExitCode == 2, $"exit {run.ExitCode}\n{run.Error}");
        var pattern = Path.Combine(_folder, "set_0_*.xel");
        Assert.Contains($"backupxe: {pattern}: set_0_2.xel: empty", run.Error);
        Assert.Contains($"backupxe: {pattern}: set_0_3.xel: not a recognised format", run.Error);
        Assert.Contains($"backupxe: {pattern}: set_0_4.xel: holds xe-xml, not .xel", run.Error);
        if (pipe)
        {
            Assert.Contains($"backupxe: {pattern}: set_0_5.xel: empty, or not a regular file", run.Error);
        }

        // Both real members, each as read alone (less the CSV header of the second).
        var events = single.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length - 1;
        Assert.Equal(1 + (2 * events), run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private string Member(int number) => Path.Combine(_folder, $"set_0_{number}.xel");

    private static async Task<bool> Exited(Process process)
    {
        await process.WaitForExitAsync();
        return process.ExitCode == 0;
    }
}
