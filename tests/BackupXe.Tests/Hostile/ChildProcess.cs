using System.Diagnostics;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// The CLI or the worker run as the user runs them, in their own process: exit code, output, and the peak
/// memory the operating system saw (which an in-process test cannot tell apart from the test host's own).
/// </summary>
internal sealed record ChildProcess(int ExitCode, string Output, string Error, long PeakBytes)
{
    public static string Cli => Path.Combine(AppContext.BaseDirectory, "backupxe.dll");

    public static string Worker => Path.Combine(AppContext.BaseDirectory, "BackupXe.Worker.dll");

    /// <summary>
    /// A .NET program run by <c>dotnet</c>, in the Production environment and without colour, as a service manager
    /// or a script starts it.
    /// </summary>
    public static Task<ChildProcess> RunAsync(string dll, string workingDirectory, TimeSpan timeout, params string[] args)
    {
        var start = new ProcessStartInfo("dotnet") { WorkingDirectory = workingDirectory };
        start.ArgumentList.Add(dll);

        // The worker's sample settings are for Development; start-up checks must not depend on them.
        start.Environment["DOTNET_ENVIRONMENT"] = "Production";
        start.Environment["NO_COLOR"] = "1";
        return RunAsync(start, Path.GetFileName(dll), timeout, args);
    }

    /// <summary>
    /// An executable run as it is (the native CLI), with the test's own environment and standard input closed, so a
    /// command that would read it sees its end at once.
    /// </summary>
    public static Task<ChildProcess> RunExecutableAsync(string executable, TimeSpan timeout, params string[] args)
        => RunAsync(new ProcessStartInfo(executable) { RedirectStandardInput = true }, Path.GetFileName(executable), timeout, args);

    private static async Task<ChildProcess> RunAsync(ProcessStartInfo start, string name, TimeSpan timeout, string[] args)
    {
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.UseShellExecute = false;
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        if (start.RedirectStandardInput)
        {
            process.StandardInput.Close();
        }

        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        var peak = 0L;
        var clock = Stopwatch.StartNew();
        while (!process.HasExited)
        {
            try
            {
                process.Refresh();
                peak = Math.Max(peak, process.PeakWorkingSet64);
            }
            catch (InvalidOperationException)
            {
                // Exited between the check and the read.
            }

            if (clock.Elapsed > timeout)
            {
                process.Kill(entireProcessTree: true);
                await process.WaitForExitAsync();

                // What it printed before it was stopped is what tells a hang from a slow machine.
                throw new TimeoutException(
                    $"{name} {string.Join(' ', args)} ran over {timeout.TotalSeconds} s\nstderr: {Tail(await error)}\nstdout: {Tail(await output)}");
            }

            await Task.Delay(20);
        }

        await process.WaitForExitAsync();
        return new ChildProcess(process.ExitCode, await output, await error, peak);
    }

    private static string Tail(string text) => text.Length <= 2000 ? text : text[^2000..];

    /// <summary>A .NET stack trace in the output: what a DBA or a journal must never see.</summary>
    public bool ShowsStackTrace =>
        Error.Contains("   at ", StringComparison.Ordinal) || Output.Contains("   at ", StringComparison.Ordinal)
        || Error.Contains("Unhandled exception", StringComparison.Ordinal);
}
