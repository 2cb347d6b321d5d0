using BackupXe.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// Tests that change what the whole process shares (the current directory, an environment variable the product
/// reads) or time themselves by the wall clock: they run alone, after the tests that run side by side. (Named for
/// the global console the CLI's tests once shared; a CLI run now writes to a console of its own, <see cref="CliRun"/>.)
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ConsoleCollection
{
    public const string Name = "console";
}

internal sealed record CliRun(int ExitCode, string Output, string Error)
{
    public static Task<CliRun> RunAsync(params string[] args) => RunAsync(columns: null, args);

    /// <summary>The CLI run in-process on a console of its own, <paramref name="columns"/> wide when given (else as <c>COLUMNS</c> says).</summary>
    public static async Task<CliRun> RunAsync(int? columns, params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await Program.RunAsync(args, Captured(output, error, columns));
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    /// <summary>The CLI run in-process on a console of its own, its waits timed on <paramref name="time"/> (a test's fake clock).</summary>
    public static async Task<CliRun> RunAsync(TimeProvider time, params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await Program.RunAsync(args, Captured(output, error), time);
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    /// <summary>
    /// A console whose standard output and error land in <paramref name="output"/> and <paramref name="error"/>, as a
    /// pipe: not a terminal (the JSON report's bytes land in the same writer, in order).
    /// </summary>
    public static CliConsole Captured(TextWriter output, TextWriter error, int? columns = null) => new()
    {
        Out = output,
        Error = error,
        OpenStandardOutput = () => new DecodingStream(output),
        IsOutputRedirected = true,
        IsErrorRedirected = true,
        Columns = columns?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? Environment.GetEnvironmentVariable("COLUMNS"),
        WindowWidth = () => throw new IOException("a captured console has no terminal"),
    };

    /// <summary>
    /// The CLI run from <paramref name="directory"/> (inputs named relatively, as a user types them: the report's column
    /// widths follow a path's length) on a terminal <paramref name="columns"/> wide; for tests in the console collection.
    /// </summary>
    public static async Task<CliRun> RunInAsync(string directory, int columns, params string[] args)
    {
        var previous = Directory.GetCurrentDirectory();
        Directory.SetCurrentDirectory(directory);
        try
        {
            return await RunAsync(columns, args);
        }
        finally
        {
            Directory.SetCurrentDirectory(previous);
        }
    }

    /// <summary>The repository's samples/ folder, found from the test's output folder.</summary>
    public static string Sample(string name) => Path.Combine(Repository.Root, "samples", name);
}
