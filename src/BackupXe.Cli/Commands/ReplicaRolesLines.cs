using BackupXe.SqlServer.Msdb;

namespace BackupXe.Cli.Commands;

/// <summary>What `history import --server` says of the replica roles it read and kept (docs/fleet.md, "Backup preference").</summary>
internal static class ReplicaRolesLines
{
    /// <summary>One line per note, and one naming the group databases whose roles were kept; nothing for a server without groups.</summary>
    public static IEnumerable<string> Of(ReplicaRoles read)
    {
        foreach (var note in read.Notes)
        {
            yield return $"  note: {note}";
        }

        if (read.Read && read.Roles.Count > 0)
        {
            var roles = read.Roles.OrderBy(r => r.Database, StringComparer.Ordinal)
                .Select(r => $"{Core.Rendering.TerminalText.Line(r.Database)} {r.Role ?? "role unknown"}{(r.Preferred is false ? ", not the preferred backup replica" : string.Empty)}");
            yield return $"  availability group roles kept: {string.Join("; ", roles)}";
        }
    }
}
