using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.Correlation;

/// <summary>
/// The ERRORLOG's own record of a backup device that failed (18204 "Backup device 'X' failed to create/open", 18210
/// "read/write/flush failure on backup device 'X'"): the server writes it for the failed command even when no closing
/// 3041 follows in the excerpt, so on its own it is a failed operation whose kind the device's verb tells.
/// </summary>
internal static class DeviceFailure
{
    /// <summary>True when <paramref name="number"/> is a device failure the ERRORLOG writes for a failed backup or restore.</summary>
    public static bool Is(int number) => number is 18204 or 18210;

    /// <summary>
    /// The kind of operation the failing device belongs to: creating or writing (flushing) a backup device is a backup,
    /// reading one is a restore (or a verify or header read, which the reader reports as restores too); null when
    /// the text names neither.
    /// </summary>
    public static OperationKind? KindOf(string? text)
    {
        if (text is null)
        {
            return null;
        }

        // As a page wrapped or spaced it: "Flush   failure" is the engine's "Flush failure".
        text = EngineMessageCatalog.Normalised(text).ToString();
        if (text.Contains("failed to create", StringComparison.Ordinal)
            || text.Contains("write failure", StringComparison.OrdinalIgnoreCase)
            || text.Contains("Flush failure", StringComparison.OrdinalIgnoreCase))
        {
            return OperationKind.Backup;
        }

        return text.Contains("read failure", StringComparison.OrdinalIgnoreCase) ? OperationKind.Restore : null;
    }

    /// <summary>
    /// An unnumbered line (a log collected without its "Error: N" header) that reads as a device failure of the
    /// catalog: the line is searched only when it names a backup device, so a log's other lines pay one scan.
    /// </summary>
    public static EngineError? Identify(string text)
    {
        if ((!text.Contains("backup device '", StringComparison.OrdinalIgnoreCase) && !text.Contains("backup device \u2018", StringComparison.OrdinalIgnoreCase))
            || EngineMessageCatalog.Identify(text) is not { } row || !Is(row.Number))
        {
            return null;
        }

        return new EngineError(row.Number, row.Severity, text.Trim());
    }
}
