using BackupXe.Core.Events;

namespace BackupXe.Sources.ClientOutput;

/// <summary>
/// The stored procedure a client's error header names ("Msg 924, Level 14, State 1, Procedure admindb.dbo.DatabaseBackup,
/// Line 2894"), and the kind of work it runs when its name says so: Ola Hallengren's DatabaseBackup backs up. An output
/// of errors only names no BACKUP or RESTORE; the procedure that raised them tells what work they stopped (realworld4 V28).
/// </summary>
internal static class ErrorProcedure
{
    private const string Marker = ", Procedure ";

    /// <summary>The procedure the <c>Msg</c> header on <paramref name="line"/> names; null when the line is no such header or names none.</summary>
    public static string? In(string line)
    {
        var text = line.AsSpan().TrimStart();
        if (!text.StartsWith("Msg ", StringComparison.Ordinal) || text.IndexOf(Marker, StringComparison.Ordinal) is not (>= 0 and var at))
        {
            return null;
        }

        var rest = text[(at + Marker.Length)..];
        var end = rest.IndexOf(',');
        var name = (end < 0 ? rest : rest[..end]).Trim();
        return name.IsEmpty ? null : name.ToString();
    }

    /// <summary>The kind of work <paramref name="procedure"/> runs, when its name says so; null otherwise.</summary>
    public static OperationKind? KindOf(string procedure)
    {
        // "admindb.dbo.DatabaseBackup", "[master].[dbo].[DatabaseBackup]": the name is the last part.
        var name = procedure[(procedure.LastIndexOf('.') + 1)..].Trim().Trim('[', ']');
        return string.Equals(name, OlaBackupProcedure, StringComparison.OrdinalIgnoreCase) ? OperationKind.Backup : null;
    }

    /// <summary>Ola Hallengren's backup procedure, by its name.</summary>
    public const string OlaBackupProcedure = "DatabaseBackup";
}
