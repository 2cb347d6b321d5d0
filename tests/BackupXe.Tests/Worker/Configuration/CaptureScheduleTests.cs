using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using Xunit;

namespace BackupXe.Tests.Worker.Configuration;

/// <summary>When the session of an instance with capture windows should run: cron rules, lead, time zones, overlaps.</summary>
public sealed class CaptureScheduleTests
{
    private const string Key = "BackupXe:Instances:0:CaptureWindows";

    private static CaptureSchedule Schedule(string? zone, double lead, params (string Start, double Minutes)[] windows)
    {
        var (schedule, problems) = CaptureSchedule.From(
            new CaptureWindowsOptions { TimeZone = zone, LeadMinutes = lead, Windows = [.. windows.Select(w => new CaptureWindowOptions { Start = w.Start, DurationMinutes = w.Minutes })] },
            Key);
        Assert.Empty(problems);
        return schedule!;
    }

    private static DateTimeOffset Utc(int day, int hour, int minute, int second = 0) => new(2024, 5, day, hour, minute, second, TimeSpan.Zero);

    [Fact]
    public void The_session_is_armed_from_the_lead_before_a_window_to_its_end()
    {
        var schedule = Schedule("UTC", 5, ("0 3 * * *", 60));

        Assert.Null(schedule.ArmedUntil(Utc(1, 2, 54, 59)));
        Assert.Equal(Utc(1, 4, 0), schedule.ArmedUntil(Utc(1, 2, 55)));
        Assert.Equal(Utc(1, 4, 0), schedule.ArmedUntil(Utc(1, 3, 59, 59)));
        Assert.Null(schedule.ArmedUntil(Utc(1, 4, 0)));
        Assert.Equal(Utc(2, 2, 55), schedule.NextArm(Utc(1, 4, 0)));
    }

    [Fact]
    public void A_rule_is_read_in_its_time_zone()
    {
        // 22:00 in New York in May is 02:00 UTC the next day (EDT, UTC-4)
        var schedule = Schedule("America/New_York", 0, ("0 22 * * *", 120));

        Assert.Equal(Utc(2, 2, 0), schedule.NextArm(Utc(1, 12, 0)));
        Assert.Equal(Utc(2, 4, 0), schedule.ArmedUntil(Utc(2, 3, 0)));
    }

    [Fact]
    public void A_weekly_rule_waits_for_its_day()
    {
        // 2024-05-01 is a Wednesday; the full backup window is on Saturdays
        var schedule = Schedule("UTC", 5, ("0 3 * * 6", 240));

        Assert.Null(schedule.ArmedUntil(Utc(1, 2, 55)));
        Assert.Equal(Utc(4, 2, 55), schedule.NextArm(Utc(1, 2, 55)));
    }

    [Fact]
    public void Windows_that_overlap_or_touch_are_one_armed_period()
    {
        // 03:00-04:00 and 04:00-04:30 (armed from 03:55): the session is not stopped at 04:00 and started again
        var schedule = Schedule("UTC", 5, ("0 3 * * *", 60), ("0 4 * * *", 30));

        Assert.Equal(Utc(1, 4, 30), schedule.ArmedUntil(Utc(1, 3, 10)));
    }

    [Fact]
    public void Each_bad_setting_is_one_line_naming_its_key()
    {
        var (schedule, problems) = CaptureSchedule.From(
            new CaptureWindowsOptions
            {
                TimeZone = "Mars/Olympus_Mons",
                LeadMinutes = -1,
                Windows = [new CaptureWindowOptions { Start = "0 25 * * *", DurationMinutes = 60 }, new CaptureWindowOptions { Start = "0 3 * * *" }],
            },
            Key);

        Assert.Null(schedule);
        Assert.Collection(problems,
            p => Assert.StartsWith($"{Key}:TimeZone 'Mars/Olympus_Mons' is not a time zone", p, StringComparison.Ordinal),
            p => Assert.StartsWith($"{Key}:LeadMinutes must be between 0 and 1440; it is -1.", p, StringComparison.Ordinal),
            p => Assert.StartsWith($"{Key}:Windows:0:Start '0 25 * * *' is not a cron rule", p, StringComparison.Ordinal),
            p => Assert.Equal($"{Key}:Windows:1:DurationMinutes is required, from 1 to 10080 (a week); it is 0.", p));
    }

    [Fact]
    public void A_rule_of_a_hundred_thousand_list_items_is_refused_before_the_cron_parser_reads_it()
    {
        // Given a minute field of 100,000 values (the parser recursed per item and overflowed the stack)
        var rule = string.Join(',', Enumerable.Repeat("0", 100_000)) + " 3 * * *";

        // When
        var (schedule, problems) = CaptureSchedule.From(
            new CaptureWindowsOptions { Windows = [new CaptureWindowOptions { Start = rule, DurationMinutes = 60 }] }, Key);

        // Then one line naming the key, without the rule itself
        Assert.Null(schedule);
        var problem = Assert.Single(problems);
        Assert.StartsWith($"{Key}:Windows:0:Start is 200007 characters long, more than 512", problem, StringComparison.Ordinal);
        Assert.True(problem.Length < 400, problem);
    }

    [Fact]
    public void A_short_rule_listing_more_values_than_a_field_has_is_refused_naming_the_field()
    {
        var rule = string.Join(',', Enumerable.Repeat("1", 100)) + " * * *";

        var (_, problems) = CaptureSchedule.From(
            new CaptureWindowsOptions { Windows = [new CaptureWindowOptions { Start = "0 " + rule, DurationMinutes = 60 }] }, Key);

        Assert.Equal($"{Key}:Windows:0:Start lists 100 values in its field 2, more than the 64 any field has: a cron rule of five fields (minute hour day-of-month month day-of-week) is shorter, e.g. \"0 22 * * *\" for 22:00 every day.", Assert.Single(problems));
    }

    [Theory]
    [InlineData("0 0 30 2 *")]
    [InlineData("0 0 31 4 *")]
    public void A_rule_that_never_fires_is_refused(string rule)
    {
        var (schedule, problems) = CaptureSchedule.From(
            new CaptureWindowsOptions { Windows = [new CaptureWindowOptions { Start = rule, DurationMinutes = 60 }] }, Key);

        Assert.Null(schedule);
        Assert.StartsWith($"{Key}:Windows:0:Start '{rule}' never fires", Assert.Single(problems), StringComparison.Ordinal);
    }

    [Fact]
    public void A_leap_day_rule_fires_and_is_kept()
    {
        var schedule = Schedule("UTC", 0, ("0 3 29 2 *", 60));

        Assert.Equal(new DateTimeOffset(2028, 2, 29, 3, 0, 0, TimeSpan.Zero), schedule.NextArm(Utc(1, 0, 0)));
    }
}
