using BackupXe.Core.Parsing;
using BackupXe.Sources.Errorlog;

namespace BackupXe.Sources.ClientOutput;

/// <summary>
/// A line that holds several messages (SQL Agent stores a whole step on one line) with binary or control characters in
/// some of them: the damaged messages are left out and the others kept, so that one bad message costs itself, not the
/// step. Each kept message is given back with the SQLSTATE suffix Agent ends a message with, as the transcript reads it.
/// </summary>
internal static class DamagedMessages
{
    private const string Suffix = " [SQLSTATE 01000] ";

    /// <summary>
    /// The line without its damaged messages and the places (1 for the first message) of those left out; null when the
    /// line is one message, or every message of it is damaged.
    /// </summary>
    public static (string Kept, IReadOnlyList<int> Dropped)? Without(string line)
    {
        if (!ClientLine.IsWrapped(line))
        {
            return null;
        }

        var messages = ClientLine.Unwrap(line);
        if (messages.Count < 2)
        {
            return null;
        }

        var kept = new System.Text.StringBuilder(line.Length);
        var dropped = new List<int>();
        for (var i = 0; i < messages.Count; i++)
        {
            if (ErrorlogLine.LooksBinary(messages[i]))
            {
                dropped.Add(i + 1);
            }
            else
            {
                kept.Append(messages[i]).Append(Suffix);
            }
        }

        return kept.Length == 0 ? null : (kept.ToString(), dropped);
    }
}
