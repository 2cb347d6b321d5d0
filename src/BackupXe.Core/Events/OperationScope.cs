namespace BackupXe.Core.Events;

/// <summary>
/// What a backup/restore is of: BACKUP DATABASE / LOG / DIFFERENTIAL / FILE (same for RESTORE), or, for a RESTORE that
/// only reads the backup media, which read it was (its failure line names it: "RESTORE HEADERONLY is terminating
/// abnormally."). A media read restores nothing, so it is never a restore of a database.
/// </summary>
public enum OperationScope
{
    Database,
    Log,
    Differential,
    File,

    /// <summary>RESTORE HEADERONLY: the backup sets' headers.</summary>
    HeaderOnly,

    /// <summary>RESTORE FILELISTONLY: the database and log files a backup set holds.</summary>
    FileListOnly,

    /// <summary>RESTORE LABELONLY: the media's label.</summary>
    LabelOnly,

    /// <summary>RESTORE VERIFYONLY: a check that the backup is whole and readable, which reads all of it.</summary>
    VerifyOnly,
}
