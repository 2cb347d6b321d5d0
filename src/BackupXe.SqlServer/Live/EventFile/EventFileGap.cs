using System.Globalization;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>Why events were never read.</summary>
internal enum EventFileGapCause
{
    /// <summary>The file a tail was to resume in had been rolled over and deleted; reading went on at the oldest file still there.</summary>
    RolledOver,

    /// <summary>
    /// The server found a damaged buffer in the file (error 25736) and reads no further events from it; reading
    /// went on at the start of the target's current file, and files between the two were not read.
    /// </summary>
    DamagedBuffer,
}

/// <summary>
/// Events that were never read, and why (<see cref="EventFileGapCause"/>). Everything between the last event read
/// and the first one after is lost and said so.
/// </summary>
/// <param name="LastRead">Where reading had got to (null: nothing read yet).</param>
/// <param name="LastEventUtc">Timestamp of the last event read before the gap.</param>
/// <param name="MissingFile">The file that was gone, or the damaged one.</param>
/// <param name="ResumedAt">The first row read after the gap.</param>
/// <param name="FirstEventUtc">Timestamp of the first event read after the gap, when it parsed.</param>
internal sealed record EventFileGap(
    EventFilePosition? LastRead,
    DateTime? LastEventUtc,
    string MissingFile,
    EventFilePosition ResumedAt,
    DateTime? FirstEventUtc,
    EventFileGapCause Cause = EventFileGapCause.RolledOver)
{
    public string Describe()
    {
        var from = LastEventUtc is { } last ? last.ToString("yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture) + " UTC" : "an unknown time";
        var to = FirstEventUtc is { } first ? first.ToString("yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture) + " UTC" : "an unknown time";
        if (Cause == EventFileGapCause.DamagedBuffer)
        {
            return $"events lost between {from} and {to}: the server found a damaged buffer in {MissingFile} (error 25736) and reads "
                + $"no further events from it (read up to {(LastRead?.ToString() ?? "its start")}); reading went on at {ResumedAt}, "
                + "the start of the target's current file, and any file between the two was not read.";
        }

        return $"events lost between {from} and {to}: {MissingFile} was rolled over and deleted before it was read "
            + $"to its end (read up to {(LastRead?.ToString() ?? "its start")}); reading resumed at {ResumedAt}. "
            + "Raise max_rollover_files or max_file_size of the session's event_file target if this recurs.";
    }
}
