using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.Reporting;

/// <summary>How an operation is named and timed in every human format.</summary>
public static class OperationText
{
    public static string Title(OperationReport operation)
        => Title(operation.Kind, operation.Scope, operation.Database, operation.SessionId);

    /// <summary>"BACKUP DATABASE [SalesDB], session 57".</summary>
    public static string Title(OperationKind kind, OperationScope? operationScope, string? databaseName, int? sessionId)
    {
        var database = databaseName is { } d ? $" [{d}]" : string.Empty;
        var session = sessionId is { } s ? $", session {s}" : string.Empty;
        if (kind == OperationKind.Unknown)
        {
            return $"BACKUP or RESTORE (the input does not say which){database}{session}";
        }

        var verb = kind == OperationKind.Backup ? "BACKUP" : "RESTORE";

        // An ERRORLOG's failure or device line, an abort, may not say what of: the title does not guess DATABASE.
        if (operationScope is null)
        {
            return $"{verb} (DATABASE or LOG: the input does not say){database}{session}";
        }

        var scope = operationScope switch
        {
            OperationScope.Log => "LOG",
            OperationScope.Differential => "DATABASE (differential)",
            OperationScope.File => "DATABASE (file)",
            OperationScope.HeaderOnly => "HEADERONLY",
            OperationScope.FileListOnly => "FILELISTONLY",
            OperationScope.LabelOnly => "LABELONLY",
            OperationScope.VerifyOnly => "VERIFYONLY",
            _ => "DATABASE",
        };
        return $"{verb} {scope}{database}{session}";
    }

    /// <summary>True for a RESTORE that only reads the backup media (HEADERONLY, FILELISTONLY, LABELONLY, VERIFYONLY): no restore of data.</summary>
    public static bool IsMediaRead(OperationScope? scope) => scope is OperationScope.HeaderOnly or OperationScope.FileListOnly or OperationScope.LabelOnly or OperationScope.VerifyOnly;

    /// <summary>The operation's duration, or "at least 19.05 s" when its closing line is not in the input.</summary>
    public static string Duration(OperationReport operation) =>
        operation.DurationSeconds is null && operation.MinimumDurationSeconds is { } minimum
            ? "at least " + Figures.Duration(minimum)
            : Figures.Duration(operation.DurationSeconds);
}
