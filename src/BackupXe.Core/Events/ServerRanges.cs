namespace BackupXe.Core.Events;

/// <summary>
/// The numbers SQL Server can write into a trace. A value outside these ranges is damage (a bit flip, a torn
/// write, a hand-edited file), reported where it was read and dropped with its event, so that everything
/// downstream can add and multiply without overflowing.
/// </summary>
public static class ServerRanges
{
    /// <summary>
    /// 2^60 bytes: above the largest database SQL Server supports (524,272 TB, "Maximum capacity
    /// specifications for SQL Server"), and small enough that a sum of 2^3 of them still fits a long.
    /// </summary>
    public const long MaxBytes = 1L << 60;

    /// <summary>Pages are 8 KB.</summary>
    public const long MaxPages = MaxBytes / 8192;

    /// <summary>
    /// Ten years in milliseconds. No wait or operation outlives the instance it ran on; a longer one is damage,
    /// and the bound keeps any timestamp minus a duration inside <see cref="DateTime"/>'s range.
    /// </summary>
    public const long MaxDurationMs = 10L * 366 * 24 * 60 * 60 * 1000;

    /// <summary><see cref="MaxDurationMs"/> in seconds, for the elapsed time of a completion line.</summary>
    public const double MaxSeconds = MaxDurationMs / 1000.0;

    /// <summary>
    /// 2^30 buffers (BUFFERCOUNT, sets, media and encode buffers): with the smallest MAXTRANSFERSIZE of 64 KB, more
    /// would be 64 TB of buffer memory, more than any server holds. BUFFERCOUNT itself is an int.
    /// </summary>
    public const long MaxBufferCount = 1L << 30;

    /// <summary>The session_id action is a uint16 (the event_data sample in docs/backup-internals.md#xe-xml-event-shape declares its type).</summary>
    public const int MaxSessionId = ushort.MaxValue;

    /// <summary>The year of <see cref="EarliestTimestamp"/>, for readers that check a year before building a date.</summary>
    public const int EarliestYear = 1753;

    /// <summary>The year of <see cref="LatestTimestamp"/>.</summary>
    public const int LatestYear = 9989;

    /// <summary>The earliest instant SQL Server's datetime type holds; no trace is older.</summary>
    public static readonly DateTime EarliestTimestamp = new(EarliestYear, 1, 1, 0, 0, 0, DateTimeKind.Unspecified);

    /// <summary>Ten years short of <see cref="DateTime.MaxValue"/>, so that adding a valid duration cannot overflow.</summary>
    public static readonly DateTime LatestTimestamp = new(LatestYear, 12, 31, 0, 0, 0, DateTimeKind.Unspecified);

    public static bool IsBytes(long value) => value is >= 0 and <= MaxBytes;

    public static bool IsDurationMs(long value) => value is >= 0 and <= MaxDurationMs;

    public static bool IsSessionId(long value) => value is >= 0 and <= MaxSessionId;

    public static bool IsTimestamp(DateTime value) => value >= EarliestTimestamp && value <= LatestTimestamp;

    /// <summary>Multiplies two non-negative figures (buffers x bytes), stopping at <see cref="long.MaxValue"/>.</summary>
    public static long SaturatingMultiply(long a, long b) =>
        a <= 0 || b <= 0 ? Math.Max(0, a) * Math.Max(0, b) : b > long.MaxValue / a ? long.MaxValue : a * b;

    /// <summary>Adds two non-negative totals, stopping at <see cref="long.MaxValue"/> instead of wrapping negative.</summary>
    public static long SaturatingAdd(long total, long value)
    {
        var sum = unchecked(total + value);
        return ((total ^ sum) & (value ^ sum)) < 0 ? (value > 0 ? long.MaxValue : long.MinValue) : sum;
    }
}
