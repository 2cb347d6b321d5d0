using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Each remedy's expected gain (docs/diagnosis.md, "Expected gain"): a bound from this operation's own measures where
/// they support one, a published figure where only that exists, or "cannot tell". A bound is Amdahl's: removing part of
/// the time leaves the rest, so the operation is at most total / (total - part) times faster. It is a ceiling, reached
/// only if the part vanishes and nothing else becomes the limit, never a forecast.
/// </summary>
internal static class ExpectedGains
{
    /// <summary>
    /// Above this share the part fills nearly all the time and 1 / (1 - share) runs away (10x at 90%, 100x at 99%): the
    /// figure would rest on the last few percent, which assumed thread counts or clock resolution can move, so none is given.
    /// </summary>
    public const double LargestBoundedShare = 0.9;

    public static ExpectedGain EvidenceOnly(string text) => new(GainBasis.EvidenceOnly, text);

    public static ExpectedGain Published(string text) => new(GainBasis.Published, text);

    public static ExpectedGain CannotTell(string text) => new(GainBasis.CannotTell, text);

    /// <summary>
    /// The bound from a wait that takes <paramref name="share"/> of each thread's time in the copy (or the whole
    /// operation when the copy phase was not captured), if <paramref name="fix"/> removed all of it.
    /// </summary>
    /// <param name="wait">"BACKUPBUFFER", "BACKUPIO".</param>
    /// <param name="threads">Whose time the share is of: "each thread's", "each writer's".</param>
    public static ExpectedGain FromWaitShare(OperationMeasures measures, string wait, double share, string threads, string fix)
    {
        if (measures.ElapsedSeconds is not > 0 || share <= 0)
        {
            return CannotTell($"No {wait} waits were measured for this {measures.Noun}: the evidence gives no figure.");
        }

        var measured = $"{wait} took {Figures.Percent(share)} of {threads} time in the {measures.ElapsedName}";
        if (share >= LargestBoundedShare)
        {
            return CannotTell($"{measured}: so nearly all of it that no bound can be given, only that the gain could be large if {fix} removes it.");
        }

        var elapsed = measures.ElapsedSeconds.Value;
        var saved = share * elapsed;
        var copyBound = 1 / (1 - share);
        var text = $"At most {Figures.Ratio(copyBound)} faster in the {measures.ElapsedName}";
        double? operationBound = null;
        if (measures.DurationSeconds is { } duration && duration > saved)
        {
            // A duration cut short by the input's end is a lower bound; dividing by it overstates the gain, so the ceiling still holds.
            operationBound = duration / (duration - saved);
            if (duration > elapsed * 1.01)
            {
                text += $", {Figures.Ratio(operationBound.Value)} for the whole {measures.Noun} ({Figures.Seconds(duration)} to no less than {Figures.Seconds(duration - saved)})";
            }
        }

        text += $": {measured}, a ceiling reached only if {fix} removes all of it and nothing else becomes the limit.";
        if (measures.DeviceThreadsAssumed || measures.DataFileThreadsAssumed)
        {
            text += " The thread counts were assumed, so the share and this bound are approximate.";
        }

        return new ExpectedGain(GainBasis.Measured, text) { AtMostTimesFaster = Math.Round(operationBound ?? copyBound, 2) };
    }

    /// <summary>The bound from the time the restore was blocked on zeroing, if <paramref name="fix"/> removed <paramref name="part"/> of it.</summary>
    /// <param name="part">Which zeroing the remedy removes, and when this ceiling is reached.</param>
    public static ExpectedGain FromZeroing(OperationMeasures measures, FileZeroing zeroing, string fix, string part)
    {
        if (measures.DurationSeconds is not { } duration || zeroing.Seconds <= 0)
        {
            return CannotTell("The time spent zeroing was not measured: the evidence gives no figure.");
        }

        var measured = $"the restore was held {Figures.Seconds(zeroing.Seconds)} by zeroing ({Figures.Percent(zeroing.Share)} of the {measures.DurationPhrase}, from {zeroing.DecidedBy ?? "the zeroing measures"})";
        if (zeroing.Share >= LargestBoundedShare)
        {
            return CannotTell($"Up to {Figures.Seconds(zeroing.Seconds)} saved: {measured}, so nearly all of it that a speed-up figure would be no bound. {part}");
        }

        var bound = duration / (duration - zeroing.Seconds);
        var text = $"At most {Figures.Ratio(bound)} faster, {Figures.Seconds(zeroing.Seconds)} saved at most: {measured}; {fix} removes {part}";
        return new ExpectedGain(GainBasis.Measured, text) { AtMostTimesFaster = Math.Round(bound, 2) };
    }
}
