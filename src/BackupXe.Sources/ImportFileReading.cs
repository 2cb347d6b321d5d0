using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.Core.History;

namespace BackupXe.Sources;

/// <summary>
/// One file being read for <c>backupxe history import</c>: its records come as a stream read once, so an import
/// holds the record it is storing, not the file's. <see cref="Server"/>, <see cref="Problems"/> and
/// <see cref="SkippedCommands"/> grow as the records are read and are whole once they have all been read.
/// </summary>
public sealed class ImportFileReading : IAsyncDisposable
{
    private readonly Func<CancellationToken, IAsyncEnumerable<HistoryOperation>> _records;
    private readonly Func<string?> _server;
    private readonly Func<IReadOnlyList<InputProblem>> _problems;
    private readonly Func<int> _skipped;
    private readonly Stream? _stream;
    private bool _started;

    internal ImportFileReading(
        string path, string? format, Stream? stream, Func<CancellationToken, IAsyncEnumerable<HistoryOperation>> records,
        Func<string?> server, Func<IReadOnlyList<InputProblem>> problems, Func<int> skipped)
    {
        Path = path;
        Format = format;
        _stream = stream;
        _records = records;
        _server = server;
        _problems = problems;
        _skipped = skipped;
    }

    public string Path { get; }

    /// <summary>The format recognised; null when the file could not be read at all (<see cref="Problems"/> says why).</summary>
    public string? Format { get; }

    /// <summary>The server the file names, once its header has been read (before its first record).</summary>
    public string? Server => _server();

    public IReadOnlyList<InputProblem> Problems => _problems();

    public int SkippedCommands => _skipped();

    /// <summary>The file's records in file order; one pass only, since the file is read as they are taken.</summary>
    public IAsyncEnumerable<HistoryOperation> ReadRecordsAsync(CancellationToken cancellationToken)
    {
        if (_started)
        {
            throw new InvalidOperationException("The records of a history file are read once.");
        }

        _started = true;
        return _records(cancellationToken);
    }

    public async ValueTask DisposeAsync()
    {
        if (_stream is not null)
        {
            await _stream.DisposeAsync();
        }
    }

    internal static ImportFileReading Failed(string path, string message)
    {
        IReadOnlyList<InputProblem> problems = [new InputProblem("offset 0", message)];
        return new(path, null, null, _ => None(), () => null, () => problems, () => 0);
    }

    internal static async IAsyncEnumerable<HistoryOperation> FromText(
        TextReader text, Func<TextReader, IEnumerable<HistoryOperation>> read, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using (text)
        {
            foreach (var record in read(text))
            {
                cancellationToken.ThrowIfCancellationRequested();
                yield return record;
            }
        }

        await Task.CompletedTask;
    }

    private static async IAsyncEnumerable<HistoryOperation> None()
    {
        await Task.CompletedTask;
        yield break;
    }
}
