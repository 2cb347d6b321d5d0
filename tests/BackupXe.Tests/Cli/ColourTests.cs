using System.Diagnostics;
using BackupXe.Tests.Hostile;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// Colour only on a terminal, never with NO_COLOR or --no-color, and never in a pipe: the real CLI run in a child
/// process, on a pseudo-terminal made by util-linux's <c>script</c> where a terminal is needed.
/// </summary>
public sealed partial class ColourTests
{
    // Colour and weight are SGR sequences (ESC [ ... m); the runtime's own terminal set-up (ESC [?1h) is not colour.
    [System.Text.RegularExpressions.GeneratedRegex("\u001b\\[[0-9;]*m", System.Text.RegularExpressions.RegexOptions.CultureInvariant)]
    private static partial System.Text.RegularExpressions.Regex Sgr();

    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(2);

    private static string Sample => CliRun.Sample("buffer-starved-backup.xml");

    /// <summary>The CLI on a terminal: `script` gives it a pseudo-terminal and copies what it wrote.</summary>
    private static async Task<string> OnTerminalAsync(bool noColorVariable, params string[] args)
    {
        Skipped.Unless(OperatingSystem.IsLinux() && File.Exists("/usr/bin/script"), "a pseudo-terminal is made here with util-linux's script", "run the tests on Linux with util-linux installed");
        var command = string.Join(' ', new[] { "dotnet", ChildProcess.Cli }.Concat(args).Select(a => "'" + a.Replace("'", "'\\''", StringComparison.Ordinal) + "'"));
        var start = new ProcessStartInfo("/usr/bin/script") { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true, UseShellExecute = false };
        foreach (var arg in new[] { "-qec", command, "/dev/null" })
        {
            start.ArgumentList.Add(arg);
        }

        start.Environment.Remove("NO_COLOR");
        start.Environment["TERM"] = "xterm-256color";
        start.Environment["COLUMNS"] = "120";
        if (noColorVariable)
        {
            start.Environment["NO_COLOR"] = "1";
        }

        using var process = Process.Start(start)!;
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(Timeout);
        await process.WaitForExitAsync(timeout.Token);
        Assert.Equal(0, process.ExitCode);
        return await output;
    }

    [Fact]
    public async Task A_terminal_gets_colour()
    {
        var output = await OnTerminalAsync(false, "analyze", Sample);

        Assert.Contains("buffer-starved", output, StringComparison.Ordinal);
        Assert.Matches(Sgr(), output);
    }

    [Fact]
    public async Task A_terminal_with_NO_COLOR_gets_none()
    {
        var output = await OnTerminalAsync(true, "analyze", Sample);

        Assert.Contains("buffer-starved", output, StringComparison.Ordinal);
        Assert.DoesNotMatch(Sgr(), output);
    }

    [Fact]
    public async Task A_terminal_with_no_color_option_gets_none()
    {
        var output = await OnTerminalAsync(false, "analyze", Sample, "--no-color");

        Assert.Contains("buffer-starved", output, StringComparison.Ordinal);
        Assert.DoesNotMatch(Sgr(), output);
    }

    [Fact]
    public async Task A_pipe_gets_none_even_without_NO_COLOR()
    {
        // Given: the CLI's output read through a pipe, with no NO_COLOR in its environment
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(ChildProcess.Cli);
        start.ArgumentList.Add("analyze");
        start.ArgumentList.Add(Sample);
        start.Environment.Remove("NO_COLOR");

        // When
        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(Timeout);
        await process.WaitForExitAsync(timeout.Token);

        // Then
        Assert.Equal(0, process.ExitCode);
        var text = await output;
        Assert.Contains("buffer-starved", text, StringComparison.Ordinal);
        Assert.DoesNotMatch(Sgr(), text);
    }
}
