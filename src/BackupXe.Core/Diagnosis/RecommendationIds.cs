namespace BackupXe.Core.Diagnosis;

/// <summary>The stable recommendation ids (docs/diagnosis.md): other tools key on them, never rename one.</summary>
internal static class RecommendationIds
{
    public const string RaiseBuffers = "raise-buffers";
    public const string StripeDevices = "stripe-devices";
    public const string EnableCompression = "enable-compression";
    public const string BlockSize65536 = "blocksize-65536";
    public const string MeasureReadCeiling = "measure-read-ceiling";
    public const string SpreadDataFiles = "spread-data-files";
    public const string TestWithoutCompression = "test-without-compression";
    public const string InstantFileInitialization = "instant-file-initialization";
    public const string RightSizeLog = "right-size-log";
    public const string RestoreOverExisting = "restore-over-existing";
    public const string RestoreMaxTransferSize = "restore-maxtransfersize";
    public const string CaptureWaits = "capture-waits";
    public const string CaptureTraceFlags = "capture-trace-flags";
    public const string CompressionAlgorithm = "compression-algorithm";
    public const string UrlCapacity = "url-capacity";
    public const string KnownDefect = "known-defect";
}
