using System.CommandLine;
using System.CommandLine.Parsing;
using BackupXe.Sources;

namespace BackupXe.Cli.Commands;

/// <summary>
/// The one check of every verb that writes a file with <c>--output</c>: the file written must not be one the verb
/// reads (an input, a member of an input pattern, a history database and its journal files), whether named by the
/// same string, another relative path, a symbolic link to it or to a folder above it, or a hard link (the same
/// <see cref="FileIdentity"/> under another name). Checked at parse time, so nothing has been opened, truncated or
/// created when it refuses.
/// </summary>
internal static class OutputTarget
{
    /// <summary>Adds the check to <paramref name="command"/>: <paramref name="readPaths"/> gives the files it reads.</summary>
    public static void MustNotOverwriteWhatIsRead(Command command, Option<string?> output, Func<CommandResult, IEnumerable<string?>> readPaths)
        => MustNotOverwriteWhatIsRead(command, output, "the report", readPaths);

    /// <summary>
    /// The same check for another file a command writes (<c>history import --path</c>): <paramref name="written"/> names
    /// what would be written there.
    /// </summary>
    public static void MustNotOverwriteWhatIsRead(Command command, Option<string?> target, string written, Func<CommandResult, IEnumerable<string?>> readPaths)
    {
        command.Validators.Add(result =>
        {
            if (result.GetValue(target) is not { Length: > 0 } path || path == InputSources.StandardInput)
            {
                return;
            }

            if (Conflict(path, readPaths(result)) is { } read)
            {
                var also = read == path ? "also read by this command" : $"the same file as '{read}', which this command reads";
                result.AddError($"{target.Name} '{path}' is {also}: writing {written} would destroy it. Name another file.");
            }
        });
    }

    /// <summary>The first path of <paramref name="readPaths"/> that is the same file as <paramref name="target"/>, if any.</summary>
    public static string? Conflict(string target, IEnumerable<string?> readPaths)
    {
        var written = Canonical(target);
        var writtenIdentity = FileIdentity.Of(target);
        foreach (var read in readPaths)
        {
            if (read is null || read == InputSources.StandardInput)
            {
                continue;
            }

            foreach (var file in Members(read))
            {
                if (string.Equals(Canonical(file), written, PathComparison)
                    || (writtenIdentity is { } identity && FileIdentity.Of(file) == identity))
                {
                    return file;
                }
            }
        }

        return null;
    }

    /// <summary>A SQLite database with the journal files SQLite keeps beside it: overwriting either loses data.</summary>
    public static IEnumerable<string?> SqliteFiles(string? database) =>
        database is null ? [] : [database, database + "-wal", database + "-shm", database + "-journal"];

    /// <summary>The files a named input stands for: itself, or each file its pattern matches.</summary>
    private static IEnumerable<string> Members(string read)
    {
        if (!InputPattern.IsPattern(read))
        {
            return [read];
        }

        try
        {
            return [read, .. InputPattern.Expand(read)];
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return [read];
        }
    }

    /// <summary>
    /// The absolute path with every symbolic link resolved, in the folders as well as the file; a part that does not
    /// exist yet is kept as written (a new output file).
    /// </summary>
    internal static string Canonical(string path)
    {
        string full;
        try
        {
            full = Path.GetFullPath(path);
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return path;
        }

        var root = Path.GetPathRoot(full) ?? string.Empty;
        var resolved = root;
        foreach (var part in full[root.Length..].Split(Path.DirectorySeparatorChar, StringSplitOptions.RemoveEmptyEntries))
        {
            resolved = Path.Combine(resolved, part);
            for (var hops = 0; hops < 40 && LinkTarget(resolved) is { } target; hops++)
            {
                resolved = Path.GetFullPath(target, Path.GetDirectoryName(resolved) ?? root);
            }
        }

        return resolved;
    }

    private static string? LinkTarget(string path)
    {
        try
        {
            return new FileInfo(path).LinkTarget;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return null;
        }
    }

    // Windows and macOS file systems are case-insensitive by default; Linux ones are not.
    private static StringComparison PathComparison =>
        OperatingSystem.IsLinux() ? StringComparison.Ordinal : StringComparison.OrdinalIgnoreCase;
}
