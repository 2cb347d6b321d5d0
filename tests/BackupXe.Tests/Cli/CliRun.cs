using BackupXe.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>The CLI writes to the process console; tests that capture it must not run side by side.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ConsoleCollection
{
    public const string Name = "console";
}

internal sealed record CliRun(int ExitCode, string Output, string Error)
{
    public static async Task<CliRun> RunAsync(params string[] args)
    {
        var (stdout, stderr) = (Console.Out, Console.Error);
        var output = new StringWriter();
        var error = new StringWriter();
        Console.SetOut(output);
        Console.SetError(error);
        try
        {
            // The JSON report writes bytes to standard output; they land in the same capture, in order.
            var exit = await Program.RunAsync(args, () => new DecodingStream(output));
            return new CliRun(exit, output.ToString(), error.ToString());
        }
        finally
        {
            Console.SetOut(stdout);
            Console.SetError(stderr);
        }
    }

    /// <summary>
    /// The CLI run from <paramref name="directory"/> (inputs named relatively, as a user types them: the report's column
    /// widths follow a path's length) on a terminal <paramref name="columns"/> wide; for tests in the console collection.
    /// </summary>
    public static async Task<CliRun> RunInAsync(string directory, int columns, params string[] args)
    {
        var previous = Directory.GetCurrentDirectory();
        var previousColumns = Environment.GetEnvironmentVariable("COLUMNS");
        Directory.SetCurrentDirectory(directory);
        Environment.SetEnvironmentVariable("COLUMNS", columns.ToString(System.Globalization.CultureInfo.InvariantCulture));
        try
        {
            return await RunAsync(args);
        }
        finally
        {
            Directory.SetCurrentDirectory(previous);
            Environment.SetEnvironmentVariable("COLUMNS", previousColumns);
        }
    }

    /// <summary>The repository's samples/ folder, found from the test's output folder.</summary>
    public static string Sample(string name) => Path.Combine(Repository.Root, "samples", name);
}
