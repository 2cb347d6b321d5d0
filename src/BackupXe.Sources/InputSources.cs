using System.Diagnostics.CodeAnalysis;
using BackupXe.Core.Events;
using BackupXe.Sources.Formats;
using BackupXe.Sources.Xel;

namespace BackupXe.Sources;

/// <summary>Where the CLI and the daemon turn what the user named (a path, or <c>-</c>) into a source.</summary>
public static class InputSources
{
    /// <summary>The name that stands for standard input, as in most Unix tools.</summary>
    public const string StandardInput = "-";

    public const string FileNotFound = "file not found";
    public const string EmptyFile = "empty file";

    public static string NotRecognised => $"not a recognised format (expected {InputFormats.Names()}; docs/input-formats.md)";

    /// <summary>
    /// A source for <paramref name="path"/> (or standard input for <c>-</c>), chosen by content. An input that
    /// cannot be read still gets a source: one that yields nothing and says why, so one bad input never stops
    /// the others being analysed.
    /// </summary>
    public static ITraceEventSource Open(string path)
    {
        if (path == StandardInput)
        {
            return Open(path, Console.OpenStandardInput());
        }

        if (InputPattern.IsPattern(path))
        {
            return OpenPattern(path);
        }

        return TryOpenFile(path, out var stream, out var problem) ? Open(path, stream) : new UnreadableInputSource(path, problem);
    }

    /// <summary>Sniffs <paramref name="stream"/> once and reads on from there; the source owns the stream.</summary>
    public static ITraceEventSource Open(string name, Stream stream)
    {
        InputPrefix prefix;
        try
        {
            prefix = InputPrefix.Read(stream);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            stream.Dispose();
            return new UnreadableInputSource(name, $"cannot be read: {e.Message}");
        }

        if (InputFormats.Recognise(prefix) is var (format, match))
        {
            return format.Open(name, new PrefixedStream(prefix.Bytes, stream), match);
        }

        stream.Dispose();
        return new UnreadableInputSource(name, Unrecognised(prefix));
    }

    /// <summary>What the file at <paramref name="path"/> holds, judged as <see cref="Open(string)"/> would; the file is closed again.</summary>
    public static InputRecognition Recognise(string path)
    {
        if (!TryOpenFile(path, out var stream, out var problem))
        {
            return new InputRecognition(null, problem);
        }

        using (stream)
        {
            var prefix = InputPrefix.Read(stream);
            return InputFormats.Recognise(prefix) is var (format, _)
                ? new InputRecognition(format, null)
                : new InputRecognition(null, Unrecognised(prefix));
        }
    }

    // Why no format took the input: nothing in it, SQL Server's text too thin to tell an operation from, or content of no
    // known format.
    private static string Unrecognised(InputPrefix prefix)
        => prefix.Bytes.IsEmpty || prefix.Text.IsBlank ? EmptyFile : EngineTextFound.Describe(prefix.Text) ?? NotRecognised;

    private static bool TryOpenFile(string path, [NotNullWhen(true)] out Stream? stream, [NotNullWhen(false)] out string? problem)
    {
        stream = null;
        problem = null;
        if (Directory.Exists(path))
        {
            problem = "is a folder, not a file";
            return false;
        }

        try
        {
            stream = InputFile.OpenRead(path);
            return true;
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            problem = FileNotFound;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            problem = $"cannot be opened: {e.Message}";
        }

        return false;
    }

    /// <summary>
    /// A source per distinct input, in the order given. The same file named twice (also through another
    /// relative path or a link) is read once, so no count is doubled; each repeat is returned as a note.
    /// </summary>
    public static InputSelection OpenAll(IEnumerable<string> paths)
    {
        var seen = new Dictionary<string, string>(StringComparer.Ordinal);
        var copies = new SameContent();
        var sources = new List<ITraceEventSource>();
        var repeats = new List<string>();
        foreach (var path in paths)
        {
            var identity = Identity(path);
            if (seen.TryGetValue(identity, out var first))
            {
                repeats.Add(path == first ? $"{path}: named more than once; read once" : $"{path}: the same file as {first}; read once");
                continue;
            }

            seen.Add(identity, path);
            if (copies.CopyOf(path) is { } original)
            {
                // A copy under another name (a capture fetched twice, a folder copied beside the original) holds the
                // same events: reading both would count every backup twice.
                repeats.Add($"{path}: the same content as {original}; read once");
                continue;
            }

            sources.Add(Open(path));
        }

        return new InputSelection(sources, repeats);
    }

    private static string Identity(string path)
    {
        if (path == StandardInput)
        {
            return path;
        }

        try
        {
            var full = Path.GetFullPath(path);
            return new FileInfo(full).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? full;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            // Unresolvable names are opened (and reported) on their own.
            return path;
        }
    }

    /// <summary>
    /// A pattern: a set of .xel files (an event_file rollover set) is one source read in file order, each file
    /// with its own metadata; a pattern matching one file of any format is that file. A member that is not a
    /// readable .xel (empty, as a copy of a session's folder holds right after a rollover, unreadable, of another
    /// format, or not a regular file) is named and skipped, and the other members are read.
    /// </summary>
    private static ITraceEventSource OpenPattern(string pattern)
    {
        var files = InputPattern.Expand(pattern);
        if (files.Count == 0)
        {
            return new UnreadableInputSource(pattern, "no file matches this pattern");
        }

        if (files.Count == 1)
        {
            return Open(files[0]);
        }

        var members = new List<string>();
        var skipped = new List<(string File, string Problem)>();
        foreach (var file in files)
        {
            if (XelMemberProblem(file) is { } problem)
            {
                skipped.Add((Path.GetFileName(file), problem));
            }
            else
            {
                members.Add(file);
            }
        }

        return members.Count > 0
            ? new XelFileSource(pattern, members, skipped)
            : new UnreadableInputSource(pattern, $"matches {files.Count} files and none is a readable .xel file; name them one by one instead");
    }

    // Why a member of a pattern is not read as part of the .xel set; null for a .xel file.
    private static string? XelMemberProblem(string file)
    {
        try
        {
            // A pipe or a device has no length, and opening a pipe would wait for a writer that may never come;
            // an empty file has nothing to read. Neither is opened.
            if (new FileInfo(file).Length == 0)
            {
                return "empty, or not a regular file (a pipe or a device); skipped";
            }

            var recognition = Recognise(file);
            return recognition.Format switch
            {
                XelFormat => null,
                { } other => $"holds {other.Name}, not .xel; skipped",
                null => $"{recognition.Problem}; skipped",
            };
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return $"cannot be read: {e.Message}; skipped";
        }
    }

    /// <summary>
    /// Files already taken, by length: only a file as long as an earlier one is read for comparison, so inputs of
    /// different sizes, the usual case, are never read twice. The members of a rollover set all have the set's file
    /// size, so equal lengths are compared first by a sample of each file (<see cref="FileSample"/>), a few hundred
    /// KB whatever the size; only files whose samples agree are hashed whole. Named pipes, devices, standard input and
    /// patterns, which have no length to compare, are left alone.
    /// </summary>
    private sealed class SameContent
    {
        private readonly Dictionary<long, List<Taken>> _byLength = [];

        public string? CopyOf(string path)
        {
            long length;
            try
            {
                var file = new FileInfo(path);
                if (path == StandardInput || !file.Exists || file.Length == 0)
                {
                    return null;
                }

                length = file.Length;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
            {
                return null;
            }

            var taken = new Taken(path, length);
            if (!_byLength.TryGetValue(length, out var same))
            {
                _byLength.Add(length, [taken]);
                return null;
            }

            foreach (var earlier in same)
            {
                if (earlier.SameAs(taken))
                {
                    return earlier.Path;
                }
            }

            same.Add(taken);
            return null;
        }

        /// <summary>A file taken, with its sample and its whole hash once they were needed; null when unreadable.</summary>
        private sealed class Taken(string path, long length)
        {
            private byte[]? _sample;
            private byte[]? _hash;
            private bool _sampled;
            private bool _hashed;

            public string Path { get; } = path;

            public bool SameAs(Taken other) =>
                Equal(Sample(), other.Sample()) && Equal(Hash(), other.Hash());

            private static bool Equal(byte[]? a, byte[]? b) => a is not null && b is not null && a.AsSpan().SequenceEqual(b);

            private byte[]? Sample()
            {
                if (!_sampled)
                {
                    _sampled = true;
                    _sample = Read(FileSample.Of);
                }

                return _sample;
            }

            private byte[]? Hash()
            {
                // A small file's sample is already the hash of all of it: it is not read again.
                if (FileSample.IsWhole(length))
                {
                    return Sample();
                }

                if (!_hashed)
                {
                    _hashed = true;
                    _hash = Read(static stream => System.Security.Cryptography.SHA256.HashData(stream));
                }

                return _hash;
            }

            private byte[]? Read(Func<FileStream, byte[]> digest)
            {
                try
                {
                    using var stream = File.OpenRead(Path);
                    return digest(stream);
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    // Unreadable: opened (and reported) on its own.
                    return null;
                }
            }
        }
    }
}

/// <summary>An input's format, or why it cannot be read.</summary>
public sealed record InputRecognition(IInputFormat? Format, string? Problem);

/// <summary>The sources to read, and the inputs skipped because they repeat an earlier one.</summary>
public sealed record InputSelection(IReadOnlyList<ITraceEventSource> Sources, IReadOnlyList<string> Repeats);
