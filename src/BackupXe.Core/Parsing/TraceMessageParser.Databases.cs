
namespace BackupXe.Core.Parsing;

// Lines about a database's state: SQL Server 2022's upgrade steps, the T-SQL snapshot and VSS freeze steps, a database marked RESTORING.
public sealed partial class TraceMessageParser
{
    // "Converting database 'D' from version 904 to the current version 957."
    private static DatabaseUpgrade? ParseUpgrade(ReadOnlySpan<char> rest, bool isStep)
    {
        var cursor = new Cursor(rest);
        if (cursor.Quoted() is not { } database)
        {
            return null;
        }

        return UpgradeVersions(ref cursor, database, isStep);
    }

    // "Database 'D' running the upgrade step from version 904 to version 905." (the phrase consumed "Database '").
    private static DatabaseUpgrade? ParseUpgradeStep(ReadOnlySpan<char> rest)
    {
        var close = rest.IndexOf('\'');
        if (close <= 0)
        {
            return null;
        }

        var cursor = new Cursor(rest[(close + 1)..]);
        return cursor.Word("running the upgrade step") ? UpgradeVersions(ref cursor, rest[..close].ToString(), isStep: true) : null;
    }

    // "Database 'D' acquired suspend locks in session 149." and the other T-SQL snapshot steps (the phrase consumed "Database '").
    private static SnapshotStep? ParseSuspendStep(ReadOnlySpan<char> rest)
    {
        var close = rest.IndexOf('\'');
        if (close <= 0)
        {
            return null;
        }

        var cursor = new Cursor(rest[(close + 1)..]);
        SnapshotEvent step;
        if (cursor.Word("acquired suspend locks"))
        {
            step = SnapshotEvent.SuspendLocksAcquired;
        }
        else if (cursor.Word("released suspend locks"))
        {
            step = SnapshotEvent.SuspendLocksReleased;
        }
        else if (cursor.Word("successfully suspended for snapshot backup"))
        {
            step = SnapshotEvent.Suspended;
        }
        else if (cursor.Word("originally suspended for snapshot backup") && cursor.Rest.Contains("successfully resumed", StringComparison.OrdinalIgnoreCase))
        {
            step = SnapshotEvent.Resumed;
        }
        else
        {
            return null;
        }

        return new SnapshotStep(rest[..close].ToString(), step);
    }

    // "I/O is frozen on database TPCC100. No user action is required. ..." (the phrase consumed the words before the name):
    // the name runs to the sentence's end.
    private static SnapshotStep? ParseFreeze(ReadOnlySpan<char> rest, SnapshotEvent step)
    {
        var name = rest.Trim();
        var end = name.IndexOf(". ", StringComparison.Ordinal);
        name = end >= 0 ? name[..end] : name.TrimEnd('.');
        return name.IsEmpty || name.Contains(' ') ? null : new SnapshotStep(name.ToString(), step);
    }

    // "The database 'X' is marked RESTORING and is in a state that does not allow recovery to be run." (the phrase
    // consumed "The database '").
    private static DatabaseMarkedRestoring? ParseMarkedRestoring(ReadOnlySpan<char> rest)
    {
        var close = rest.IndexOf('\'');
        if (close <= 0)
        {
            return null;
        }

        var cursor = new Cursor(rest[(close + 1)..]);
        return cursor.Word("is marked RESTORING") ? new DatabaseMarkedRestoring(rest[..close].ToString()) : null;
    }

    private static DatabaseUpgrade? UpgradeVersions(ref Cursor cursor, string database, bool isStep)
    {
        if (!cursor.Word("from") || !cursor.Word("version") || cursor.Long() is not { } from || !cursor.Word("to"))
        {
            return null;
        }

        cursor.Word("the current");
        if (!cursor.Word("version") || cursor.Long() is not { } to || !IsEnd(cursor.Rest) || from > int.MaxValue || to > int.MaxValue)
        {
            return null;
        }

        return new DatabaseUpgrade(database, (int)from, (int)to, isStep);
    }
}
