using System.Globalization;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Why a failed backup or restore failed: its first real engine error, where the copy stood when it came, and what that
/// error means. Msg 3013 ("%hs is terminating abnormally", Microsoft docs, database engine errors 3000-3999) always
/// follows the real error and is named only when no other was printed (docs/diagnosis.md).
/// </summary>
internal static class FailureReasons
{
    /// <summary>The evidence sentence for a failed operation; null for one that did not fail.</summary>
    public static string? Sentence(OperationReport operation, bool restore)
    {
        if (operation.Status != OperationStatus.Failed)
        {
            return null;
        }

        // A read of the media is named by its statement: it restored nothing (realworld4 V25, a RESTORE HEADERONLY).
        var noun = OperationText.IsMediaRead(operation.Scope) ? OperationText.Title(operation.Kind, operation.Scope, null, null)
            : restore ? "restore" : operation.Kind == Events.OperationKind.Unknown ? "backup or restore" : "backup";
        if (operation.FailureError is not { } error || Parsing.EngineError.IsGeneric(error.Number))
        {
            return $"The {noun} failed, and the input names no error more specific than its generic ending ({operation.FailureReason ?? "no message"}): "
                + "the client's own output (SSMS, sqlcmd, the Agent job step) prints the real error just before or after that line.";
        }

        if (error.Number == Parsing.EngineMessageCatalog.ClientTimedOut)
        {
            return ClientStopped(operation, error, noun);
        }

        var level = error.Severity is { } severity ? string.Create(CultureInfo.InvariantCulture, $" (severity {severity})") : "";
        var sentence = string.Create(CultureInfo.InvariantCulture, $"The {noun} failed with Msg {error.Number}{level}: {error.Text.TrimEnd('.')}. ")
            + Wording(error) + Stage(error.Stage, restore, noun, error.Number);
        sentence = Meaning(error.Number) is { } meaning ? $"{sentence} {meaning}" : sentence;
        if (error.OsError is { } os)
        {
            sentence += os.Code is { } code
                ? string.Create(CultureInfo.InvariantCulture, $" Operating system error {code}: {os.Meaning.TrimEnd('.')}.")
                : $" The storage endpoint answered with an exception: {os.Meaning.TrimEnd('.')}.";
        }

        return sentence;
    }

    // SQL Server localises a message's text, not its number: a text in another language is read by its number, and the
    // report says so (realworld4 V23, a German 3201).
    private static string Wording(FailureErrorReport error) => Parsing.EngineMessageCatalog.OtherWordingOf(error.Number, error.Text) switch
    {
        null => string.Empty,
        "" => string.Create(CultureInfo.InvariantCulture,
            $"Its text is not SQL Server's English wording of Msg {error.Number}: it is read by its number, and what the number and an operating system error's code tell is all that is said. "),
        { } language => string.Create(CultureInfo.InvariantCulture,
            $"Its text is SQL Server's {language} wording of Msg {error.Number}, not the English one: it is read by its number. "),
    };

    /// <summary>The remedy sentence of a failed operation, with its source; null when none is known.</summary>
    public static string? RemedySentence(OperationReport operation)
        => operation.Status == OperationStatus.Failed && operation.FailureError?.Remedy is { } remedy
            ? $"What to do ({remedy.Id}): {remedy.Text} Source: {remedy.Source}."
            : null;

    /// <summary>
    /// The same report with the remedy of its failure's root error attached (<see cref="FailureErrorReport.Remedy"/>);
    /// unchanged when it did not fail or no remedy is known.
    /// </summary>
    public static OperationReport WithRemedy(OperationReport operation, bool restore)
    {
        if (operation.Status != OperationStatus.Failed || operation.FailureError is not { } error || error.Remedy is not null)
        {
            return operation;
        }

        var os = error.OsError is { } decoded ? new Parsing.OsError(decoded.Code, decoded.Meaning) : null;
        return FailureRemedies.For(error.Number, os, restore, error.Text) is { } remedy
            ? operation with { FailureError = error with { Remedy = remedy } }
            : operation;
    }

    private static string Stage(CopyStage? stage, bool restore, string noun, int number) => stage switch
    {
        // An error outside the operation that stopped the work first (924, 916; 229, which names an object, not the
        // database): nothing ran, so nothing of speed either.
        CopyStage.NotStarted => $"No {noun} ran: {(Parsing.EngineMessageCatalog.NamesDatabase(number) ? "the database could not be used, so " : "")}"
            + $"the work stopped before any {StatementOf(noun)} began (the input shows no progress): no data was copied, and there is no duration or speed to judge.",
        CopyStage.AfterCopy => restore
            ? "It came after the copy: every file's pages had been restored (the per-file \"Processed N pages\" lines or 100 percent came first), "
                + "so the restore failed while finishing it (the upgrade of a database from an older version, then recovery), not while copying."
            : "It came after the data copy (the per-file \"Processed N pages\" lines or 100 percent came first): the backup failed while finishing "
                + "(the log and the closing metadata), not while copying.",
        CopyStage.DuringCopy => "It came during the copy: progress had been printed, and not its end.",
        CopyStage.BeforeCopy => "It came before any data moved.",
        _ => "Where the copy stood when it came is not in the input (no progress line before it).",
    };

    // The statement a noun names: "backup" is BACKUP, "restore" RESTORE, "backup or restore" either.
    private static string StatementOf(string noun) => noun switch
    {
        "backup" => "BACKUP",
        "restore" => "RESTORE",
        _ => "BACKUP or RESTORE",
    };

    // The driver's time-out is the client's, not the server's: what the input shows of the server after it is all that is said.
    private static string ClientStopped(OperationReport operation, FailureErrorReport error, string noun)
    {
        var sentence = $"The client stopped waiting: its command time-out expired ('{error.Text.Trim()}'), so it cancelled the {noun}; "
            + "this is not a failure inside SQL Server, which had not completed the command when the client gave up.";
        if (error.Stage is { } stage)
        {
            sentence += " " + Stage(stage, operation.Kind == Events.OperationKind.Restore, noun, error.Number);
        }

        var then = operation.FailureReason?.IndexOf(Correlation.BackupOperation.ClientStopThen, StringComparison.Ordinal) ?? -1;
        if (then < 0)
        {
            return sentence + " Whether SQL Server then ended it is not in the input: it may still have been running.";
        }

        var ending = operation.FailureReason![(then + Correlation.BackupOperation.ClientStopThen.Length)..].Trim();
        return sentence + (ending == AbortedText
            ? $" SQL Server then aborted the {noun} (3204, '{ending}'): it did not complete."
            : $" SQL Server then ended it ('{ending}'): it did not complete.");
    }

    private static readonly string AbortedText = Parsing.EngineMessageCatalog.Find(Parsing.EngineMessageCatalog.Aborted)!.Template;

    // Microsoft's error pages (MSSQLSERVER_845, _3201, _3203, _3241, _3266, _4305) and the messages' own wording.
    private static string? Meaning(int number) => number switch
    {
        845 => "Msg 845 is a time-out waiting for a buffer latch on a page: an I/O on the database's files did not complete in time, "
            + "the storage under them stalled or was driven to its limit.",
        3201 => "The backup device could not be opened; the operating system error in the message says why (2 or 3: the path does not exist, 5: access denied).",
        3202 => "A write to the backup device failed; the operating system error in the message says why (112: the disk is full).",
        3203 => "A read of the backup device failed: the backup file, or the storage or network under it, is damaged or was unavailable.",
        3241 => "The media family on the device is incorrectly formed: the file is not a complete backup, or a newer version of SQL Server wrote it.",
        3266 => "The backup data at the end of the device is incorrectly formatted: an earlier backup to this media set did not finish, so it cannot be appended to.",
        3035 => "A differential backup needs a full backup as its base, and the database has none (or none since it was created or its recovery model changed).",
        3078 => "The backup device's name is not valid for the device type given (DISK, TAPE, URL): the command was refused before anything was opened.",
        3204 => "SQL Server aborted the command: it was stopped (a client's cancel or time-out, or a KILL) before it completed.",
        924 => "The database is in single-user mode (only one connection may use it at a time) and another connection already holds it, "
            + "so the work could not use the database.",
        911 => "No database of that name exists on the server, so the work could not use it.",
        229 => "The login that ran the work was denied a permission on an object it needed (the message names both), so the work could not run.",
        Parsing.EngineMessageCatalog.PermissionDenied => "The login that ran the command lacks a permission the statement needs (the message names it, and the database where it was "
            + "checked): the statement was refused before anything was read or written.",
        916 => "The login that ran the work has no access to the database (no user there, and the guest user has no CONNECT permission), "
            + "so the work could not use the database.",
        4305 => "The log backup begins after the point the database has reached: a log backup between them is missing from the restore sequence.",
        _ => null,
    };
}
