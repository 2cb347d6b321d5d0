using System.Diagnostics;
using System.Text;
using BackupXe.Tests.Hostile;

namespace BackupXe.Tests.Support;

/// <summary>
/// The built worker (<c>dotnet BackupXe.Worker.dll</c>) running in its own process with a given working directory
/// (its content root: appsettings.json, the history file) and environment. Output is drained as it comes, so a
/// chatty worker never blocks on a full pipe; <see cref="Kill"/> is <see cref="Process.Kill()"/>, which is SIGKILL
/// on Linux: no finally block, no flush, no host shutdown.
/// </summary>
internal sealed class WorkerProcess : IDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private WorkerProcess(Process process)
    {
        _process = process;
        _process.OutputDataReceived += (_, e) => Append(e.Data);
        _process.ErrorDataReceived += (_, e) => Append(e.Data);
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    public int Id => _process.Id;

    public bool HasExited => _process.HasExited;

    /// <summary>Standard output and error so far, interleaved as they arrived.</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    public static WorkerProcess Start(string workingDirectory, IReadOnlyDictionary<string, string> environment)
    {
        // A run started from a background job of a shell without job control (`.ci/run &`, nohup) inherits SIGINT and
        // SIGQUIT ignored, and so would the worker: the .NET runtime leaves a signal ignored at start-up ignored, as
        // POSIX programs do. A person's Ctrl-C reaches a worker started from a terminal, so the worker starts with
        // them at their default, through coreutils' env.
        var start = new ProcessStartInfo(InheritsIgnoredInterrupt() ? "env" : "dotnet")
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (start.FileName == "env")
        {
            start.ArgumentList.Add("--default-signal=INT,QUIT");
            start.ArgumentList.Add("dotnet");
        }

        start.ArgumentList.Add(ChildProcess.Worker);
        start.Environment["DOTNET_ENVIRONMENT"] = "Production";
        start.Environment["NO_COLOR"] = "1";
        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        return new WorkerProcess(Process.Start(start)!);
    }

    /// <summary>Whether this process ignores SIGINT (bit 2 of /proc/self/status's SigIgn mask), as its children would.</summary>
    private static bool InheritsIgnoredInterrupt()
    {
        const string Status = "/proc/self/status";
        if (!File.Exists(Status))
        {
            return false;
        }

        var mask = File.ReadLines(Status).FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal))?["SigIgn:".Length..].Trim();
        return mask is not null
            && ulong.TryParse(mask, System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture, out var ignored)
            && (ignored & (1UL << (2 - 1))) != 0;
    }

    /// <summary>SIGKILL on Linux (TerminateProcess on Windows); safe to call after the process has exited.</summary>
    public void Kill()
    {
        try
        {
            _process.Kill();
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }
    }

    /// <summary>
    /// Sends a POSIX signal as a terminal (SIGINT, Ctrl-C) or a service manager (SIGTERM, <c>systemctl stop</c>) does,
    /// through the system's own <c>kill</c> so the test needs no native interop.
    /// </summary>
    public void Signal(string name)
    {
        using var kill = Process.Start(new ProcessStartInfo("kill") { ArgumentList = { $"-{name}", Id.ToString(System.Globalization.CultureInfo.InvariantCulture) } })!;
        kill.WaitForExit();
    }

    public int ExitCode => _process.ExitCode;

    /// <summary>Waits for the exit; past <paramref name="timeout"/> fails with what the worker printed, so a hang says where it was.</summary>
    public async Task WaitForExitAsync(TimeSpan timeout)
    {
        using var limit = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(limit.Token);
        }
        catch (OperationCanceledException) when (limit.IsCancellationRequested)
        {
            throw new TimeoutException($"the worker had not exited {timeout.TotalSeconds:F0} s later; it printed:\n{Output}");
        }
    }

    public void Dispose()
    {
        Kill();
        _process.WaitForExit(10_000);
        _process.Dispose();
    }

    private void Append(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            _output.AppendLine(line);
        }
    }
}
