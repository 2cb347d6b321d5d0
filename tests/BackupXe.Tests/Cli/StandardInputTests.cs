using System.Diagnostics;
using System.Text.Json;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>The real executable with a real pipe: what <c>zcat ERRORLOG.gz | backupxe analyze -</c> does.</summary>
public sealed class StandardInputTests
{
    [Fact]
    public async Task Analyze_reads_a_piped_capture_as_it_reads_the_file()
    {
        // Given the sample capture, once as a file and once through standard input
        var sample = CliRun.Sample("buffer-starved-backup.xml");

        // When
        var fromFile = await RunAsync(["analyze", sample, "--format", "json"], stdin: null);
        var fromPipe = await RunAsync(["analyze", "-", "--format", "json"], stdin: sample);

        // Then the same operations, and the input is named "-"
        Assert.Equal((0, string.Empty), (fromPipe.Exit, fromPipe.Error));
        using var file = JsonDocument.Parse(fromFile.Output);
        using var pipe = JsonDocument.Parse(fromPipe.Output);
        Assert.Equal(file.RootElement.GetProperty("operations").GetRawText(), pipe.RootElement.GetProperty("operations").GetRawText());
        var input = pipe.RootElement.GetProperty("inputs")[0];
        Assert.Equal("-", input.GetProperty("path").GetString());
        Assert.Equal(file.RootElement.GetProperty("inputs")[0].GetProperty("events").GetInt64(), input.GetProperty("events").GetInt64());
    }

    private static async Task<(int Exit, string Output, string Error)> RunAsync(string[] args, string? stdin)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "backupxe.dll"));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        if (stdin is not null)
        {
            await using (var file = File.OpenRead(stdin))
            {
                await file.CopyToAsync(process.StandardInput.BaseStream);
            }
        }

        process.StandardInput.Close();
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        await process.WaitForExitAsync(timeout.Token);
        return (process.ExitCode, await output, await error);
    }
}
