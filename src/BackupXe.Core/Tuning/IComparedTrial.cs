namespace BackupXe.Core.Tuning;

/// <summary>A backup or restore trial as the comparison both searches share sees it (<see cref="RepeatedComparison{TTrial}"/>).</summary>
internal interface IComparedTrial
{
    int Number { get; }

    /// <summary>The mean rate of the measured runs.</summary>
    double RateMBps { get; }

    /// <summary>The rates of the runs that gave one: the noise is pooled over them and a candidate's repeats counted by them.</summary>
    IReadOnlyList<double> MeasuredRates { get; }

    /// <summary>Every run, measured or not: the order of repeats follows it and it bounds the best trial's repeats.</summary>
    int RunCount { get; }

    bool Measured { get; }

    /// <summary>The server ran it with the options asked for: only then may it be adopted.</summary>
    bool AsAsked { get; }
}
