using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Hostile;
using Microsoft.Data.Sqlite;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Worker.Hosting;

/// <summary>
/// The real worker started as systemd starts a <c>Type=notify</c> unit: its parent process is named <c>systemd</c>
/// (what Microsoft.Extensions.Hosting.Systemd checks) and NOTIFY_SOCKET names a unix datagram socket, here one the
/// test owns. The worker must say READY=1 once started, STOPPING=1 on SIGTERM, exit 0 and leave its history written.
/// </summary>
public sealed class SystemdNotifyTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-notify-").FullName;

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    [Fact]
    public async Task Under_systemd_the_worker_notifies_ready_then_stopping_and_exits_0_with_its_history_written()
    {
        Skipped.Unless(OperatingSystem.IsLinux() && File.Exists("/bin/sh"), "systemd's notify protocol is Linux's", "run the tests on Linux (with /bin/sh)");

        // Given a notify socket the test owns and a shell named systemd as the worker's parent
        var socketPath = Path.Combine(_folder, "notify.sock");
        using var socket = new Socket(AddressFamily.Unix, SocketType.Dgram, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(socketPath));
        var systemd = Path.Combine(_folder, "systemd");
        File.CreateSymbolicLink(systemd, "/bin/sh");
        File.Copy(CliRun.Sample("buffer-starved-backup.xml"), Path.Combine(_folder, "backup.xml"));
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), """
            {
              "Serilog": { "MinimumLevel": "Information", "WriteTo": [ { "Name": "Console" } ] },
              "BackupXe": { "Instances": [ { "Name": "backup", "ReplayPath": "backup.xml", "ReplaySpeed": 0 } ] }
            }
            """);
        var start = new ProcessStartInfo(systemd)
        {
            WorkingDirectory = _folder,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            // Not "exec": the shell must stay the worker's parent. Its first line is the worker's process id.
            ArgumentList = { "-c", "dotnet \"$0\" & echo \"worker $!\"; wait $!", ChildProcess.Worker },
        };
        start.Environment["NOTIFY_SOCKET"] = socketPath;
        start.Environment["DOTNET_ENVIRONMENT"] = "Production";
        using var parent = Process.Start(start)!;
        var output = new StringBuilder();
        parent.ErrorDataReceived += (_, e) => Append(output, e.Data);
        parent.BeginErrorReadLine();
        var firstLine = await parent.StandardOutput.ReadLineAsync();
        var workerId = int.Parse(firstLine!["worker ".Length..], System.Globalization.CultureInfo.InvariantCulture);
        var reading = Task.Run(async () =>
        {
            while (await parent.StandardOutput.ReadLineAsync() is { } line)
            {
                Append(output, line);
            }
        });

        try
        {
            // When it has started
            Assert.Equal("READY=1", await ReceiveAsync(socket, TimeSpan.FromSeconds(90)));
            await WaitUntilAsync(() => Text(output).Contains("stays up until stopped", StringComparison.Ordinal) || parent.HasExited, TimeSpan.FromSeconds(60));

            // and systemctl stop sends SIGTERM
            using (var kill = Process.Start("kill", ["-TERM", workerId.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
            {
                await kill.WaitForExitAsync();
            }

            // Then
            Assert.Equal("STOPPING=1", await ReceiveAsync(socket, TimeSpan.FromSeconds(30)));
            using var limit = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            await parent.WaitForExitAsync(limit.Token);
            await reading;
            var all = Text(output);
            Assert.True(parent.ExitCode == 0, $"exit {parent.ExitCode}\n{all}");
            Assert.DoesNotContain("   at ", all, StringComparison.Ordinal);
            Assert.Equal(["SalesDB"], await StoredHistory.DatabasesAsync(_folder));
        }
        finally
        {
            if (!parent.HasExited)
            {
                try
                {
                    Process.GetProcessById(workerId).Kill();
                }
                catch (ArgumentException)
                {
                    // Already gone.
                }

                parent.Kill();
            }
        }
    }

    private static void Append(StringBuilder output, string? line)
    {
        lock (output)
        {
            output.AppendLine(line);
        }
    }

    private static string Text(StringBuilder output)
    {
        lock (output)
        {
            return output.ToString();
        }
    }

    private static async Task WaitUntilAsync(Func<bool> condition, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > timeout)
            {
                throw new TimeoutException($"condition not met within {timeout.TotalSeconds} s");
            }

            await Task.Delay(20);
        }
    }

    private static async Task<string> ReceiveAsync(Socket socket, TimeSpan timeout)
    {
        var buffer = new byte[4096];
        using var limit = new CancellationTokenSource(timeout);
        var received = await socket.ReceiveAsync(buffer, SocketFlags.None, limit.Token);
        return Encoding.UTF8.GetString(buffer, 0, received).Trim();
    }
}
