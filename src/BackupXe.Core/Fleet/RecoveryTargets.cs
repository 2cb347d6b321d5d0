using System.Globalization;

namespace BackupXe.Core.Fleet;

/// <summary>
/// One rule of the recovery targets: the databases it covers (an instance, a database name pattern with <c>*</c> and
/// <c>?</c>, a recovery model; null matches any) and the targets it sets (null leaves the target to a less specific rule).
/// </summary>
public sealed record RecoveryTargetRule(string? Instance, string? Database, string? RecoveryModel, TimeSpan? Rpo, TimeSpan? Rto)
{
    /// <summary>How specific the rule is: a database pattern outweighs an instance, which outweighs a recovery model.</summary>
    internal int Specificity => (Database is null ? 0 : 4) + (Instance is null ? 0 : 2) + (RecoveryModel is null ? 0 : 1);

    internal bool Matches(string instance, string database, string? recoveryModel)
        => (Instance is null || string.Equals(Instance, instance, StringComparison.OrdinalIgnoreCase))
            && (Database is null || NamePattern.Matches(Database, database))
            && (RecoveryModel is null || string.Equals(RecoveryModel, recoveryModel, StringComparison.OrdinalIgnoreCase));
}

/// <summary>A target and where it came from ("default", "rule 2"), so a report can say which setting applies.</summary>
public sealed record AppliedTarget(TimeSpan Value, string From);

/// <summary>
/// The RPO and RTO targets of a fleet (docs/fleet.md, "Targets"): defaults, then rules. For each target separately the
/// most specific matching rule that sets it wins (database pattern, then instance, then recovery model; a later rule
/// wins a tie), else the default; no default and no rule: no target, the figure is shown and not judged.
/// </summary>
public sealed record RecoveryTargets(TimeSpan? DefaultRpo, TimeSpan? DefaultRto, IReadOnlyList<RecoveryTargetRule> Rules)
{
    /// <summary>A day: a database with no backup for longer than that is out of any usual recovery plan.</summary>
    public static readonly TimeSpan StandardRpo = TimeSpan.FromDays(1);

    /// <summary>The longest target accepted: a year; a longer one is a typo, not a plan.</summary>
    public static readonly TimeSpan Longest = TimeSpan.FromDays(365);

    /// <summary>The recovery models msdb and sys.databases name.</summary>
    public static readonly IReadOnlyList<string> RecoveryModels = ["FULL", "BULK_LOGGED", "SIMPLE"];

    /// <summary>The targets when none are configured: an RPO of a day, no RTO target.</summary>
    public static RecoveryTargets Standard { get; } = new(StandardRpo, null, []);

    /// <summary>The RPO target of a database, or null when none applies.</summary>
    public AppliedTarget? RpoFor(string instance, string database, string? recoveryModel)
        => Pick(instance, database, recoveryModel, r => r.Rpo, DefaultRpo);

    /// <summary>The RTO target of a database, or null when none applies.</summary>
    public AppliedTarget? RtoFor(string instance, string database, string? recoveryModel)
        => Pick(instance, database, recoveryModel, r => r.Rto, DefaultRto);

    private AppliedTarget? Pick(string instance, string database, string? recoveryModel, Func<RecoveryTargetRule, TimeSpan?> target, TimeSpan? fallback)
    {
        var best = -1;
        AppliedTarget? chosen = fallback is { } value ? new AppliedTarget(value, "default") : null;
        for (var i = 0; i < Rules.Count; i++)
        {
            var rule = Rules[i];
            if (target(rule) is { } set && rule.Specificity >= best && rule.Matches(instance, database, recoveryModel))
            {
                best = rule.Specificity;
                chosen = new AppliedTarget(set, string.Create(CultureInfo.InvariantCulture, $"rule {i}"));
            }
        }

        return chosen;
    }

    /// <summary>
    /// What is wrong with targets given in minutes (0: none), each problem naming its key under <paramref name="key"/>
    /// (BackupXe:Targets:Rules:0:RpoMinutes): the daemon's validation and the CLI's reading of its settings say the same.
    /// </summary>
    public static IEnumerable<string> Problems(string key, double rpoMinutes, double rtoMinutes, IReadOnlyList<(string? Instance, string? Database, string? RecoveryModel, double RpoMinutes, double RtoMinutes)> rules)
    {
        foreach (var problem in Minutes($"{key}:RpoMinutes", rpoMinutes).Concat(Minutes($"{key}:RtoMinutes", rtoMinutes)))
        {
            yield return problem;
        }

        for (var i = 0; i < rules.Count; i++)
        {
            var rule = rules[i];
            var at = string.Create(CultureInfo.InvariantCulture, $"{key}:Rules:{i}");
            if (rule.Instance is null && rule.Database is null && rule.RecoveryModel is null)
            {
                yield return $"{at} matches every database: give it an Instance, a Database pattern or a RecoveryModel (the defaults are {key}:RpoMinutes and {key}:RtoMinutes).";
            }

            if (rule.RpoMinutes == 0 && rule.RtoMinutes == 0)
            {
                yield return $"{at} sets no target: give it RpoMinutes, RtoMinutes or both.";
            }

            if (rule.Instance is { } instance && (instance.Trim().Length == 0 || instance.Length > 256))
            {
                yield return $"{at}:Instance must be an instance name of 1 to 256 characters, as BackupXe:Instances names it.";
            }

            if (rule.Database is { } pattern && NamePattern.Problem(pattern) is { } wrong)
            {
                yield return $"{at}:Database {wrong}.";
            }

            if (rule.RecoveryModel is { } model && !RecoveryModels.Contains(model, StringComparer.OrdinalIgnoreCase))
            {
                yield return $"{at}:RecoveryModel must be one of {string.Join(", ", RecoveryModels)}; it is '{model}'.";
            }

            foreach (var problem in Minutes($"{at}:RpoMinutes", rule.RpoMinutes).Concat(Minutes($"{at}:RtoMinutes", rule.RtoMinutes)))
            {
                yield return problem;
            }
        }
    }

    /// <summary>Targets from minutes (0: none) already checked by <see cref="Problems"/>.</summary>
    public static RecoveryTargets FromMinutes(double rpoMinutes, double rtoMinutes, IEnumerable<(string? Instance, string? Database, string? RecoveryModel, double RpoMinutes, double RtoMinutes)> rules)
        => new(Span(rpoMinutes), Span(rtoMinutes), rules.Select(r => new RecoveryTargetRule(r.Instance, r.Database, r.RecoveryModel?.ToUpperInvariant(), Span(r.RpoMinutes), Span(r.RtoMinutes))).ToList());

    private static TimeSpan? Span(double minutes) => minutes > 0 ? TimeSpan.FromMinutes(minutes) : null;

    private static IEnumerable<string> Minutes(string key, double minutes)
    {
        if (!(minutes >= 0 && minutes <= Longest.TotalMinutes))
        {
            yield return string.Create(CultureInfo.InvariantCulture, $"{key} must be from 0 (no target) to {Longest.TotalMinutes} (a year); it is {minutes}.");
        }
    }
}

/// <summary>A database name pattern: <c>*</c> any run of characters, <c>?</c> one; compared without case, as SQL Server compares names by default.</summary>
public static class NamePattern
{
    /// <summary>Whether <paramref name="name"/> matches <paramref name="pattern"/> whole.</summary>
    public static bool Matches(string pattern, string name)
    {
        // Iterative wildcard match with one back-tracking point: linear in practice, no regex to build per call.
        int p = 0, n = 0, star = -1, mark = 0;
        while (n < name.Length)
        {
            if (p < pattern.Length && (pattern[p] == '?' || char.ToUpperInvariant(pattern[p]) == char.ToUpperInvariant(name[n])))
            {
                p++;
                n++;
            }
            else if (p < pattern.Length && pattern[p] == '*')
            {
                star = p++;
                mark = n;
            }
            else if (star >= 0)
            {
                p = star + 1;
                n = ++mark;
            }
            else
            {
                return false;
            }
        }

        while (p < pattern.Length && pattern[p] == '*')
        {
            p++;
        }

        return p == pattern.Length;
    }

    /// <summary>Why <paramref name="pattern"/> cannot be a database name pattern, or null when it can.</summary>
    public static string? Problem(string pattern)
        => pattern.Trim().Length == 0 ? "must not be empty"
            : pattern.Length > 128 ? "must be at most 128 characters (a database name is a sysname)"
            : null;
}
