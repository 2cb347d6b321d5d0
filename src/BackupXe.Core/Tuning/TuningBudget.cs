namespace BackupXe.Core.Tuning;

/// <summary>
/// What the backup and restore searches both spend: the time budget, the window of the next run (grown while runs
/// gave too little progress to measure), and buffer memory as the server counts it, within the request's budget and
/// the limit the server reported.
/// </summary>
internal sealed class TuningBudget(TuneRequest request)
{
    private readonly BufferPricing _pricing = new();
    private long? _memoryLimit;

    /// <summary>The window of the next run: the request's, grown while runs gave too little progress to measure.</summary>
    public TimeSpan Window { get; private set; } = request.Window;

    /// <summary>The wall time the runs took so far, their overhead included.</summary>
    public double SpentSeconds { get; private set; }

    /// <summary>The buffer memory a run may take: the request's budget, or the server's limit when it reported a lower one.</summary>
    public long MemoryCap => _memoryLimit is { } limit ? Math.Min(limit, request.MemoryBudgetBytes) : request.MemoryBudgetBytes;

    public bool TimeForAnotherRun() => SpentSeconds + Window.TotalSeconds + Tuner.TrialOverheadSeconds <= request.TimeBudget.TotalSeconds;

    /// <summary>
    /// After a run that gave no rate, the window doubles, up to <see cref="Tuner.LongestWindowShare"/> of the time
    /// budget; false when it cannot grow.
    /// </summary>
    public bool GrowWindow()
    {
        var longest = TimeSpan.FromSeconds(Math.Max(request.Window.TotalSeconds, request.TimeBudget.TotalSeconds * Tuner.LongestWindowShare));
        var grown = TimeSpan.FromSeconds(Math.Min(longest.TotalSeconds, Window.TotalSeconds * 2));
        if (grown <= Window)
        {
            return false;
        }

        Window = grown;
        return true;
    }

    public void Spend(double seconds) => SpentSeconds += seconds;

    public long Price(long requestedBytes, BufferKind kind) => _pricing.Price(requestedBytes, kind);

    public double Ratio(BufferKind kind) => _pricing.Ratio(kind);

    /// <summary>What a run taught of the server's buffers: the ratio it counts buffer memory at, and its memory limit.</summary>
    public void Learn(BufferKind kind, double? ratio, long? memoryLimitBytes)
    {
        if (ratio is { } known)
        {
            _pricing.Learn(kind, known);
        }

        if (memoryLimitBytes is { } limit)
        {
            _memoryLimit = _memoryLimit is { } lower ? Math.Min(lower, limit) : limit;
        }
    }
}
