using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Sources.Dbatools;
using BackupXe.Sources.Formats;
using BackupXe.Sources.HeaderOnly;
using BackupXe.Sources.OlaOutput;

namespace BackupXe.Sources;

/// <summary>
/// Reads a file for <c>backupxe history import</c>, by content: an Ola Hallengren job output file, or any
/// trace input <c>analyze</c> reads (XE XML, ERRORLOG), whose operations come through the one analysis path.
/// One way in: <see cref="OpenAsync(string, CancellationToken)"/>, whose records are read as they are taken.
/// </summary>
public static class ImportFile
{
    public const string OlaOutputFormat = "ola-output";

    /// <summary>A RESTORE HEADERONLY result saved as tab-separated text.</summary>
    public const string BackupHeaderFormat = "restore-headeronly";

    /// <summary>dbatools' Get-DbaDbBackupHistory printed as a table: msdb's rows through PowerShell.</summary>
    public const string DbaBackupHistoryFormat = "dbatools-backup-history";

    /// <summary>Recognises the file's format from its first bytes; its records are read as they are taken.</summary>
    public static Task<ImportFileReading> OpenAsync(string path, CancellationToken cancellationToken)
    {
        if (Directory.Exists(path))
        {
            return Task.FromResult(ImportFileReading.Failed(path, "is a folder, not a file"));
        }

        Stream stream;
        try
        {
            stream = InputFile.OpenRead(path);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return Task.FromResult(ImportFileReading.Failed(path, InputSources.FileNotFound));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return Task.FromResult(ImportFileReading.Failed(path, $"cannot be opened: {e.Message}"));
        }

        return OpenAsync(path, stream, cancellationToken);
    }

    /// <summary>As <see cref="OpenAsync(string, CancellationToken)"/> over an open stream, which the reading then owns.</summary>
    internal static async Task<ImportFileReading> OpenAsync(string path, Stream stream, CancellationToken cancellationToken)
    {
        InputPrefix prefix;
        try
        {
            prefix = InputPrefix.Read(stream);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await stream.DisposeAsync();
            return ImportFileReading.Failed(path, $"cannot be read: {e.Message}");
        }

        StreamReader Text() => new(new PrefixedStream(prefix.Bytes, stream), prefix.Text.Encoding, detectEncodingFromByteOrderMarks: true);

        if (OlaJobOutputReader.Recognise(prefix.Text))
        {
            var reader = new OlaJobOutputReader(path);
            return new ImportFileReading(
                path, OlaOutputFormat, stream, ct => ImportFileReading.FromText(Text(), reader.Read, ct),
                () => reader.Server, () => reader.Problems, () => reader.SkippedCommands);
        }

        if (RestoreHeaderOnlyReader.Recognise(prefix.Text))
        {
            var reader = new RestoreHeaderOnlyReader();
            return new ImportFileReading(
                path, BackupHeaderFormat, stream, ct => ImportFileReading.FromText(Text(), reader.Read, ct),
                () => null, () => reader.Problems, () => 0);
        }

        if (DbaBackupHistoryTableReader.Recognise(prefix.Text))
        {
            var reader = new DbaBackupHistoryTableReader();
            return new ImportFileReading(
                path, DbaBackupHistoryFormat, stream, ct => ImportFileReading.FromText(Text(), reader.Read, ct),
                () => reader.Server, () => reader.Problems, () => 0);
        }

        if (DbaBackupListReader.Recognise(prefix.Text))
        {
            var reader = new DbaBackupListReader();
            return new ImportFileReading(
                path, BackupLists.DbaBackupObjectsFormat.FormatName, stream,
                ct => ImportFileReading.FromText(Text(), text => reader.Read(text).Select(o => o.Record), ct),
                () => reader.Server, () => reader.Problems, () => 0);
        }

        if (InputFormats.Recognise(prefix) is var (format, match))
        {
            var source = format.Open(path, new PrefixedStream(prefix.Bytes, stream), match);
            var session = new AnalysisSession([source]);
            return new ImportFileReading(
                path, format.Name, stream, ct => FromReports(session, ct),
                () => null, () => [.. session.Findings.Inputs.SelectMany(i => i.Problems)], () => 0);
        }

        await stream.DisposeAsync();
        return ImportFileReading.Failed(path, prefix.Bytes.IsEmpty || prefix.Text.IsBlank
            ? InputSources.EmptyFile
            : $"not a recognised format (expected an Ola Hallengren job output file, a RESTORE HEADERONLY result, {InputFormats.Names()})");
    }

    private static async IAsyncEnumerable<HistoryOperation> FromReports(
        AnalysisSession session, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var report in session.ReadOperationsAsync(cancellationToken))
        {
            if (HistoryOperation.FromReport(report) is { } record)
            {
                yield return record;
            }
        }
    }
}
