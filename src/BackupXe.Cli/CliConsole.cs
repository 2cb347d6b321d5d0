namespace BackupXe.Cli;

/// <summary>
/// Where a verb writes and what it knows of the terminal: the process's console (<see cref="Process"/>), or a
/// capture a test hands in, so that runs of the CLI side by side do not share one global console.
/// </summary>
internal sealed record CliConsole
{
    /// <summary>Standard output as text.</summary>
    public required TextWriter Out { get; init; }

    /// <summary>Standard error.</summary>
    public required TextWriter Error { get; init; }

    /// <summary>Opens standard output as bytes (the JSON report writes its UTF-8 there), landing in the same place as <see cref="Out"/>.</summary>
    public required Func<Stream> OpenStandardOutput { get; init; }

    public required bool IsOutputRedirected { get; init; }

    public required bool IsErrorRedirected { get; init; }

    /// <summary><c>COLUMNS</c> as the shell exported it, or null.</summary>
    public required string? Columns { get; init; }

    /// <summary>The terminal's width; throws <see cref="IOException"/> when no terminal is attached.</summary>
    public required Func<int> WindowWidth { get; init; }

    /// <summary>The clock a verb measures and judges "now" by (restore-drill's phases, the fleet's ages): the system's, or a test's fake one.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    /// <summary>The process's own console, standard output widened when it is a pipe (<see cref="Rendering.OutputPipe"/>).</summary>
    public static CliConsole Process()
    {
        Rendering.OutputPipe.Widen(1);
        return new()
        {
            Out = Console.Out,
            Error = Console.Error,
            OpenStandardOutput = Console.OpenStandardOutput,
            IsOutputRedirected = Console.IsOutputRedirected,
            IsErrorRedirected = Console.IsErrorRedirected,
            Columns = Environment.GetEnvironmentVariable("COLUMNS"),
            WindowWidth = () => Console.WindowWidth,
        };
    }
}
