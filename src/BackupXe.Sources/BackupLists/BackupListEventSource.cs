using System.Runtime.CompilerServices;
using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.BackupLists;

/// <summary>One backup a history export lists, with the statement it ran when the export holds it.</summary>
internal sealed record ExportedBackup(HistoryOperation Record, RequestedReport? Requested);

/// <summary>
/// A history export (dbatools' objects and tables, RESTORE HEADERONLY) as trace events for <c>analyze</c>: each backup it
/// lists is the client's record of one command (<see cref="ClientCommandEvent"/>): its start and end to the second, its
/// size and, when the export holds the statement, its devices and options. No engine message comes with it, so each
/// is an operation known from its record alone, what <c>history import</c> keeps of the same file.
/// </summary>
internal sealed class BackupListEventSource(
    string name, string format, Func<Stream> open, Encoding? encodingWithoutBom, string spanSource,
    Func<TextReader, HistoryExportReading> read) : ITraceEventSource
{
    public string Name { get; } = name;

    public string Format { get; } = format;

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        if (TextInput.Open(open, encodingWithoutBom ?? new UTF8Encoding(encoderShouldEmitUTF8Identifier: false), status) is not { } text)
        {
            yield break;
        }

        var backups = 0;
        using (text)
        {
            var reading = read(text);
            using var each = reading.Backups.GetEnumerator();
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                try
                {
                    if (!each.MoveNext())
                    {
                        break;
                    }
                }
                catch (IOException e)
                {
                    status.Report("file", $"reading stopped: {e.Message}");
                    break;
                }

                var (record, requested) = each.Current;
                backups++;
                status.Events++;
                yield return new ClientCommandEvent(TraceEvent.NoClock, record.Kind, record.Scope, record.Database, record.Start, record.End ?? record.Start,
                    record.TimeResolutionSeconds, spanSource, record.Status == OperationStatus.Completed, requested, record.BytesRead);
            }

            foreach (var problem in reading.Problems())
            {
                status.Report(problem.Location, problem.Message);
            }
        }

        if (backups == 0)
        {
            status.Unusable = true;
            status.Report("file", "no backup listed");
        }
    }
}

/// <summary>The backups a reader yields as it reads, and the problems it met (complete once they are read).</summary>
internal sealed record HistoryExportReading(IEnumerable<ExportedBackup> Backups, Func<IReadOnlyList<InputProblem>> Problems);
