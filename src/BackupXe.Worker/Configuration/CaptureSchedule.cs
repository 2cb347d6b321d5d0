using System.Globalization;
using Cronos;

namespace BackupXe.Worker.Configuration;

/// <summary>
/// When an instance's capture session should run: from <c>lead</c> before each window's start (a cron rule read in
/// the schedule's time zone, daylight-saving changes as Cronos resolves them) to the window's end. Windows that
/// overlap or touch are one armed period, so the session is not stopped and started again between them.
/// </summary>
internal sealed class CaptureSchedule
{
    /// <summary>A week: a longer window is a typo (minutes for hours), and an armed session that never ends is not a window.</summary>
    public const double MaxDurationMinutes = 7 * 24 * 60;

    /// <summary>A day of lead is more than any job needs and keeps the arithmetic far from overflow.</summary>
    public const double MaxLeadMinutes = 24 * 60;

    /// <summary>
    /// A rule listing every value of every field is about 400 characters; a longer one is no schedule, and the cron
    /// parser is handed nothing longer (it recurses per list item: 100,000 of them overflowed the stack).
    /// </summary>
    public const int MaxRuleLength = 512;

    /// <summary>The most values a field has (the 60 minutes), with room for ranges and steps written beside them.</summary>
    public const int MaxListItems = 64;

    /// <summary>Time zone ids are a few dozen characters; the bound keeps a pasted blob away from the zone lookup.</summary>
    public const int MaxTimeZoneLength = 128;

    // Windows merged end to end; far beyond any real schedule, it only bounds a pathological rule set.
    private const int MaxMerges = 1_000;

    // Whether a rule ever fires does not depend on the day it is asked (a rule repeats within 28 years), so a fixed
    // instant keeps the check the same on every machine.
    private static readonly DateTime NeverFiresFrom = new(2001, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private readonly IReadOnlyList<(CronExpression Start, TimeSpan Duration)> _windows;

    private CaptureSchedule(IReadOnlyList<(CronExpression Start, TimeSpan Duration)> windows, TimeZoneInfo zone, TimeSpan lead)
    {
        _windows = windows;
        Zone = zone;
        Lead = lead;
    }

    public TimeZoneInfo Zone { get; }

    public TimeSpan Lead { get; }

    /// <summary>The schedule of <paramref name="options"/>, or every problem with it, each naming its key under <paramref name="key"/>.</summary>
    public static (CaptureSchedule? Schedule, IReadOnlyList<string> Problems) From(CaptureWindowsOptions options, string key)
    {
        ArgumentNullException.ThrowIfNull(options);
        var problems = new List<string>();
        var zone = TimeZoneInfo.Local;
        if (options.TimeZone is { Length: > MaxTimeZoneLength } longZone)
        {
            problems.Add($"{key}:TimeZone is {longZone.Length.ToString(CultureInfo.InvariantCulture)} characters long, more than the {MaxTimeZoneLength.ToString(CultureInfo.InvariantCulture)} of any time zone id: give an IANA id (Europe/Berlin) or a Windows id (W. Europe Standard Time).");
        }
        else if (options.TimeZone is not null)
        {
            try
            {
                zone = TimeZoneInfo.FindSystemTimeZoneById(options.TimeZone);
            }
            catch (Exception failure) when (failure is TimeZoneNotFoundException or InvalidTimeZoneException or ArgumentException)
            {
                problems.Add($"{key}:TimeZone '{options.TimeZone}' is not a time zone this machine knows: give an IANA id (Europe/Berlin) or a Windows id (W. Europe Standard Time).");
            }
        }

        if (!double.IsFinite(options.LeadMinutes) || options.LeadMinutes < 0 || options.LeadMinutes > MaxLeadMinutes)
        {
            problems.Add($"{key}:LeadMinutes must be between 0 and {MaxLeadMinutes.ToString(CultureInfo.InvariantCulture)}; it is {options.LeadMinutes.ToString(CultureInfo.InvariantCulture)}.");
        }

        var windows = new List<(CronExpression, TimeSpan)>();
        for (var index = 0; index < options.Windows.Count; index++)
        {
            var window = options.Windows[index];
            var at = $"{key}:Windows:{index}";
            CronExpression? start = null;
            if (string.IsNullOrWhiteSpace(window.Start))
            {
                problems.Add($"{at}:Start is required: a cron rule of five fields (minute hour day-of-month month day-of-week), e.g. \"0 22 * * *\" for 22:00 every day.");
            }
            else if (Oversized(window.Start) is { } oversized)
            {
                problems.Add($"{at}:Start {oversized}: a cron rule of five fields (minute hour day-of-month month day-of-week) is shorter, e.g. \"0 22 * * *\" for 22:00 every day.");
            }
            else
            {
                try
                {
                    start = CronExpression.Parse(window.Start, CronFormat.Standard);
                }
                catch (CronFormatException failure)
                {
                    problems.Add($"{at}:Start '{window.Start}' is not a cron rule of five fields (minute hour day-of-month month day-of-week): {failure.Message}");
                }

                if (start is not null && start.GetNextOccurrence(NeverFiresFrom, TimeZoneInfo.Utc) is null)
                {
                    problems.Add($"{at}:Start '{window.Start}' never fires: no date matches it (a day the month does not have, such as 30 February), so the window would never open.");
                    start = null;
                }
            }

            var minutes = window.DurationMinutes;
            if (!double.IsFinite(minutes) || minutes < 1 || minutes > MaxDurationMinutes)
            {
                problems.Add($"{at}:DurationMinutes is required, from 1 to {MaxDurationMinutes.ToString(CultureInfo.InvariantCulture)} (a week); it is {minutes.ToString(CultureInfo.InvariantCulture)}.");
            }
            else if (start is not null)
            {
                windows.Add((start, TimeSpan.FromMinutes(minutes)));
            }
        }

        return problems.Count > 0
            ? (null, problems)
            : (new CaptureSchedule(windows, zone, TimeSpan.FromMinutes(options.LeadMinutes)), problems);
    }

    /// <summary>Why <paramref name="rule"/> is too big to hand to the cron parser, or null when it is not; it is not quoted, being long.</summary>
    private static string? Oversized(string rule)
    {
        if (rule.Length > MaxRuleLength)
        {
            return $"is {rule.Length.ToString(CultureInfo.InvariantCulture)} characters long, more than {MaxRuleLength.ToString(CultureInfo.InvariantCulture)}";
        }

        var field = 0;
        foreach (var part in rule.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries))
        {
            field++;
            var items = part.Count(c => c == ',') + 1;
            if (items > MaxListItems)
            {
                return $"lists {items.ToString(CultureInfo.InvariantCulture)} values in its field {field.ToString(CultureInfo.InvariantCulture)}, more than the {MaxListItems.ToString(CultureInfo.InvariantCulture)} any field has";
            }
        }

        return null;
    }

    /// <summary>When the armed period that holds <paramref name="now"/> ends; null when the session should not run now.</summary>
    public DateTimeOffset? ArmedUntil(DateTimeOffset now)
    {
        var until = EndOfWindowsArmedAt(now);
        if (until is null)
        {
            return null;
        }

        // A window armed before this one ends carries the period on.
        for (var merges = 0; merges < MaxMerges && EndOfWindowsArmedAt(until.Value) is { } later && later > until; merges++)
        {
            until = later;
        }

        return until;
    }

    /// <summary>The next time the session should be started after <paramref name="now"/>; null when no rule fires again.</summary>
    public DateTimeOffset? NextArm(DateTimeOffset now)
    {
        DateTimeOffset? next = null;
        foreach (var (start, _) in _windows)
        {
            if (start.GetNextOccurrence((now + Lead).UtcDateTime, Zone) is { } opens)
            {
                var arm = new DateTimeOffset(opens, TimeSpan.Zero) - Lead;
                next = next is null || arm < next ? arm : next;
            }
        }

        return next;
    }

    // Windows whose armed period [opens - lead, opens + duration) holds the instant: they open in (at - duration, at + lead].
    private DateTimeOffset? EndOfWindowsArmedAt(DateTimeOffset at)
    {
        DateTimeOffset? until = null;
        foreach (var (start, duration) in _windows)
        {
            foreach (var opens in start.GetOccurrences((at - duration).UtcDateTime, (at + Lead).UtcDateTime, Zone, fromInclusive: false, toInclusive: true))
            {
                var end = new DateTimeOffset(opens, TimeSpan.Zero) + duration;
                until = until is null || end > until ? end : until;
            }
        }

        return until;
    }
}
