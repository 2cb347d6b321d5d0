using System.Globalization;

namespace BackupXe.SqlServer;

/// <summary>
/// Events that were never read: the file a tail was to resume in had been rolled over and deleted, so reading
/// went on at the oldest file still there. Everything between the two is lost and said so.
/// </summary>
/// <param name="LastRead">Where reading had got to (null: nothing read yet).</param>
/// <param name="LastEventUtc">Timestamp of the last event read before the gap.</param>
/// <param name="MissingFile">The file that was gone.</param>
/// <param name="ResumedAt">The first row read after the gap.</param>
/// <param name="FirstEventUtc">Timestamp of the first event read after the gap, when it parsed.</param>
internal sealed record EventFileGap(
    EventFilePosition? LastRead,
    DateTime? LastEventUtc,
    string MissingFile,
    EventFilePosition ResumedAt,
    DateTime? FirstEventUtc)
{
    public string Describe()
    {
        var from = LastEventUtc is { } last ? last.ToString("yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture) + " UTC" : "an unknown time";
        var to = FirstEventUtc is { } first ? first.ToString("yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture) + " UTC" : "an unknown time";
        return $"events lost between {from} and {to}: {MissingFile} was rolled over and deleted before it was read "
            + $"to its end (read up to {(LastRead?.ToString() ?? "its start")}); reading resumed at {ResumedAt}. "
            + "Raise max_rollover_files or max_file_size of the session's event_file target if this recurs.";
    }
}
