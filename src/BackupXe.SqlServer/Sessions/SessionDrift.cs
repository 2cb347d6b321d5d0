using System.Globalization;
using System.Text.RegularExpressions;

namespace BackupXe.SqlServer.Sessions;

/// <summary>One event of an installed session (sys.server_event_session_events): package, name and stored predicate.</summary>
public sealed record InstalledEvent(string Package, string Name, string? Predicate);

/// <summary>What this server's catalog offers today, read by sessions/backupxe-session-drift.sql.</summary>
/// <param name="WaitTypes">The sqlos wait_types map: map_key to wait name.</param>
/// <param name="Events">Public events as package.name.</param>
/// <param name="Fields">Data fields of the wait events as event.field.</param>
public sealed record XeCatalog(IReadOnlyDictionary<long, string> WaitTypes, IReadOnlySet<string> Events, IReadOnlySet<string> Fields);

/// <summary>
/// How an installed session's events and wait filter compare with today's catalog. The filter's map keys were looked up
/// at install time; after a cumulative update they may name other waits, and only a re-install looks them up again.
/// </summary>
/// <param name="Drifts">One sentence per difference; empty when the session matches this build.</param>
/// <param name="Checked">What was compared, for a passing line.</param>
public sealed partial record SessionDrift(IReadOnlyList<string> Drifts, string Checked)
{
    public bool Drifted => Drifts.Count > 0;

    /// <summary>Compares <paramref name="events"/> (the session's) with <paramref name="catalog"/> (today's).</summary>
    public static SessionDrift Compare(IReadOnlyList<InstalledEvent> events, XeCatalog catalog)
    {
        ArgumentNullException.ThrowIfNull(events);
        ArgumentNullException.ThrowIfNull(catalog);
        var drifts = new List<string>();
        foreach (var e in events.Where(e => !catalog.Events.Contains($"{e.Package}.{e.Name}")))
        {
            drifts.Add($"event {e.Package}.{e.Name} is not offered by this build");
        }

        var compared = new List<string>();
        foreach (var e in events.Where(e => e is { Package: "sqlos", Name: "wait_info" or "wait_info_external" }))
        {
            compared.Add(e.Name);
            drifts.AddRange(CompareWaitFilter(e, catalog));
        }

        var what = compared.Count == 0
            ? string.Create(CultureInfo.InvariantCulture, $"{events.Count} events present on this build; the session filters no waits")
            : $"{string.Join(" and ", compared)} wait keys match this build's wait_types map";
        return new SessionDrift(drifts, what);
    }

    private static IEnumerable<string> CompareWaitFilter(InstalledEvent e, XeCatalog catalog)
    {
        foreach (var field in new[] { "wait_type", "opcode" })
        {
            if (!catalog.Fields.Contains($"{e.Name}.{field}") && (e.Predicate ?? string.Empty).Contains($"[{field}]", StringComparison.Ordinal))
            {
                yield return $"{e.Name} filters on field {field}, which this build's {e.Name} does not have";
            }
        }

        var preemptive = e.Name == "wait_info_external";
        var expected = catalog.WaitTypes
            .Where(m => CapturedWaits.Names.Contains(m.Value, StringComparer.Ordinal) && CapturedWaits.IsPreemptive(m.Value) == preemptive)
            .ToDictionary(m => m.Key, m => m.Value);
        if (ReadKeys(e.Predicate) is not { } keys)
        {
            yield return $"{e.Name}'s predicate compares wait_type other than by equality, so its keys cannot be checked: {e.Predicate ?? "(none)"}";
            yield break;
        }

        foreach (var key in keys.Where(k => !expected.ContainsKey(k)).Order())
        {
            yield return catalog.WaitTypes.TryGetValue(key, out var now)
                ? string.Create(CultureInfo.InvariantCulture, $"{e.Name} filters key {key}, which now means {now}, not a backup wait")
                : string.Create(CultureInfo.InvariantCulture, $"{e.Name} filters key {key}, which this build's wait_types map does not have");
        }

        foreach (var (key, name) in expected.Where(m => !keys.Contains(m.Key)).OrderBy(m => m.Key))
        {
            yield return string.Create(CultureInfo.InvariantCulture, $"{e.Name} misses {name} (key {key} on this build)");
        }
    }

    /// <summary>
    /// The keys of a predicate's wait_type equalities, in the stored form ([wait_type]=(98)) or the comparator form
    /// (package0.equal_uint64([wait_type],(98))); null when wait_type is compared any other way, or not at all.
    /// </summary>
    internal static HashSet<long>? ReadKeys(string? predicate)
    {
        if (predicate is null)
        {
            return null;
        }

        var mentions = WaitTypeMention().Count(predicate);
        var matches = WaitTypeEquality().Matches(predicate);
        if (mentions == 0 || matches.Count != mentions)
        {
            return null;
        }

        var keys = new HashSet<long>();
        foreach (Match m in matches)
        {
            // A key too large for a long is no key the map holds: the predicate is then not one this reads.
            if (!long.TryParse(m.Groups["key"].Value, NumberStyles.None, CultureInfo.InvariantCulture, out var key))
            {
                return null;
            }

            keys.Add(key);
        }

        return keys;
    }

    [GeneratedRegex(@"\[wait_type\]", RegexOptions.CultureInvariant)]
    private static partial Regex WaitTypeMention();

    [GeneratedRegex(@"\[wait_type\]\s*=\s*\(\s*(?<key>\d+)\s*\)|equal_u?int64\]?\s*\(\s*\[wait_type\]\s*,\s*\(\s*(?<key>\d+)\s*\)\s*\)", RegexOptions.CultureInvariant)]
    private static partial Regex WaitTypeEquality();
}
