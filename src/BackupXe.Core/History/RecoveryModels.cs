namespace BackupXe.Core.History;

/// <summary>The recovery models as sys.databases spells them, from any source's spelling.</summary>
public static class RecoveryModels
{
    /// <summary>
    /// FULL, BULK_LOGGED or SIMPLE from msdb's recovery_model and RESTORE HEADERONLY's RecoveryModel (which write
    /// BULK-LOGGED) or dbatools' objects; null for anything else: not a recovery model, so not said.
    /// </summary>
    public static string? Of(string? text) => text?.Trim().Replace('-', '_').ToUpperInvariant() switch
    {
        "FULL" => "FULL",
        "BULK_LOGGED" => "BULK_LOGGED",
        "SIMPLE" => "SIMPLE",
        _ => null,
    };
}
