using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Sources.Dbatools;
using BackupXe.Sources.Formats;
using BackupXe.Sources.HeaderOnly;
using BackupXe.Sources.OlaOutput;

namespace BackupXe.Sources;

/// <summary>What one file gave the history: its records, the server it names (if any), what was wrong with it.</summary>
public sealed record HistoryFileResult(
    string Path, string? Format, string? Server, IReadOnlyList<HistoryOperation> Records, IReadOnlyList<InputProblem> Problems, int SkippedCommands);

/// <summary>
/// Reads a file for <c>backupxe history import</c>, by content: an Ola Hallengren job output file, or any
/// trace input <c>analyze</c> reads (XE XML, ERRORLOG), whose operations come through the one analysis path.
/// </summary>
public static class HistoryFile
{
    public const string OlaOutputFormat = "ola-output";

    /// <summary>A RESTORE HEADERONLY result saved as tab-separated text.</summary>
    public const string BackupHeaderFormat = "restore-headeronly";

    /// <summary>dbatools' Get-DbaDbBackupHistory printed as a table: msdb's rows through PowerShell.</summary>
    public const string DbaBackupHistoryFormat = "dbatools-backup-history";

    public static async Task<HistoryFileResult> ReadAsync(string path, CancellationToken cancellationToken)
    {
        if (Directory.Exists(path))
        {
            return Failed(path, "is a folder, not a file");
        }

        Stream stream;
        try
        {
            stream = InputFile.OpenRead(path);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return Failed(path, InputSources.FileNotFound);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return Failed(path, $"cannot be opened: {e.Message}");
        }

        InputPrefix prefix;
        try
        {
            prefix = InputPrefix.Read(stream);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await stream.DisposeAsync();
            return Failed(path, $"cannot be read: {e.Message}");
        }

        if (OlaJobOutputReader.Recognise(prefix.Text))
        {
            var reader = new OlaJobOutputReader(path);
            using var text = new StreamReader(new PrefixedStream(prefix.Bytes, stream), prefix.Text.Encoding, detectEncodingFromByteOrderMarks: true);
            var records = reader.Read(text).ToList();
            return new HistoryFileResult(path, OlaOutputFormat, reader.Server, records, reader.Problems, reader.SkippedCommands);
        }

        if (RestoreHeaderOnlyReader.Recognise(prefix.Text))
        {
            var reader = new RestoreHeaderOnlyReader();
            using var text = new StreamReader(new PrefixedStream(prefix.Bytes, stream), prefix.Text.Encoding, detectEncodingFromByteOrderMarks: true);
            var records = reader.Read(text).ToList();
            return new HistoryFileResult(path, BackupHeaderFormat, null, records, reader.Problems, 0);
        }

        if (DbaBackupHistoryTableReader.Recognise(prefix.Text))
        {
            var reader = new DbaBackupHistoryTableReader();
            using var text = new StreamReader(new PrefixedStream(prefix.Bytes, stream), prefix.Text.Encoding, detectEncodingFromByteOrderMarks: true);
            var records = reader.Read(text).ToList();
            return new HistoryFileResult(path, DbaBackupHistoryFormat, reader.Server, records, reader.Problems, 0);
        }

        if (DbaBackupListReader.Recognise(prefix.Text))
        {
            var reader = new DbaBackupListReader();
            using var text = new StreamReader(new PrefixedStream(prefix.Bytes, stream), prefix.Text.Encoding, detectEncodingFromByteOrderMarks: true);
            var records = reader.Read(text).Select(o => o.Record).ToList();
            return new HistoryFileResult(path, HistoryExports.DbaBackupObjectsFormat.FormatName, reader.Server, records, reader.Problems, 0);
        }

        if (InputFormats.Recognise(prefix) is var (format, match))
        {
            var source = format.Open(path, new PrefixedStream(prefix.Bytes, stream), match);
            var session = new AnalysisSession([source]);
            var records = new List<HistoryOperation>();
            await foreach (var report in session.ReadOperationsAsync(cancellationToken))
            {
                if (HistoryOperation.FromReport(report) is { } record)
                {
                    records.Add(record);
                }
            }

            var problems = session.Findings.Inputs.SelectMany(i => i.Problems).ToList();
            return new HistoryFileResult(path, format.Name, null, records, problems, 0);
        }

        await stream.DisposeAsync();
        return Failed(path, prefix.Bytes.IsEmpty || prefix.Text.IsBlank
            ? InputSources.EmptyFile
            : $"not a recognised format (expected an Ola Hallengren job output file, a RESTORE HEADERONLY result, {InputFormats.Names()})");
    }

    private static HistoryFileResult Failed(string path, string message)
        => new(path, null, null, [], [new InputProblem("offset 0", message)], 0);
}
