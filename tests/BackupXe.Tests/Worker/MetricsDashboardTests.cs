using System.Diagnostics.Metrics;
using System.Text.Json;
using System.Text.RegularExpressions;
using BackupXe.Core.Events;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Support;
using BackupXe.Worker.Telemetry;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// deploy/grafana/backupxe.json queries only metrics the worker exports, under the names the OpenTelemetry
/// Collector's Prometheus exporter (deploy/otel-collector/config.yaml, add_metric_suffixes) gives them, and
/// docs/metrics.md lists every one. The worker's instruments are read from a live MeterListener, not a list.
/// </summary>
public sealed partial class MetricsDashboardTests
{
    private static readonly string RepositoryRoot = Repository.Root;

    [Fact]
    public void Every_metric_the_dashboard_queries_is_one_the_worker_exports()
    {
        var exported = PrometheusSeries();
        using var dashboard = JsonDocument.Parse(File.ReadAllText(Path.Combine(RepositoryRoot, "deploy", "grafana", "backupxe.json")));
        var queried = Expressions(dashboard.RootElement)
            .SelectMany(expression => MetricName().Matches(expression).Select(match => match.Value))
            .ToHashSet();

        Assert.NotEmpty(queried);
        Assert.Empty(queried.Except(exported));
    }

    [Theory]
    [InlineData("deploy/prometheus/backupxe-rules.yml")]
    [InlineData("deploy/grafana/alerting/backupxe-alerts.yaml")]
    public void Every_metric_an_alert_rule_uses_is_one_the_worker_exports(string file)
    {
        var exported = PrometheusSeries();
        var rules = RuleExpressions(file);

        Assert.NotEmpty(rules);
        Assert.All(rules, rule => Assert.Contains(rule.Metric, exported));
    }

    [Fact]
    public void A_database_past_its_rpo_target_fires_the_shipped_rpo_rule_and_a_compliant_one_fires_none()
    {
        // Given: sql01's SalesDB whose last log backup finished two hours ago against a 15-minute RPO target; sql02's
        // Orders whose last one finished five minutes ago; no RTO target
        var now = new FakeClock(new DateTimeOffset(2026, 11, 20, 5, 0, 0, TimeSpan.Zero)).GetUtcNow().UtcDateTime;
        var targets = new RecoveryTargets(TimeSpan.FromMinutes(15), null, []);
        var late = Compliance.Evaluate(new ComplianceInput("sql01", "SalesDB", [Backup(OperationScope.Database, now.AddHours(-5)), Backup(OperationScope.Log, now.AddHours(-2))]), targets, now);
        var fine = Compliance.Evaluate(new ComplianceInput("sql02", "Orders", [Backup(OperationScope.Database, now.AddHours(-5)), Backup(OperationScope.Log, now.AddMinutes(-5))]), targets, now);

        // When the worker records them and Prometheus evaluates the shipped rules on the series it would scrape
        var series = Recorded(metrics =>
        {
            metrics.RecordCompliance("sql01", [late]);
            metrics.RecordCompliance("sql02", [fine]);
        });
        var rules = RuleExpressions("deploy/prometheus/backupxe-rules.yml");
        var firing = rules.SelectMany(rule => series.Where(rule.FiresOn).Select(s => (rule.Alert, Instance: s.Labels["instance"]))).ToList();

        // Then only the RPO rule fires, for sql01 alone
        Assert.Equal([("BackupXeDatabasesPastRpoTarget", "sql01")], firing);
    }

    [Fact]
    public void The_drill_rule_fires_for_a_database_whose_last_completed_drill_is_more_than_eight_days_old_and_for_no_other()
    {
        // Given: SalesDB last drilled to completion nine days ago, Billing yesterday
        var clock = new FakeClock(new DateTimeOffset(2026, 11, 20, 5, 0, 0, TimeSpan.Zero));
        var now = clock.GetUtcNow().UtcDateTime;

        // When
        var series = Recorded(metrics =>
        {
            metrics.RecordDrillSuccess("sql01", "SalesDB", now.AddDays(-9));
            metrics.RecordDrillSuccess("sql01", "Billing", now.AddDays(-1));
        }, clock);
        var rules = RuleExpressions("deploy/prometheus/backupxe-rules.yml");
        var firing = rules.SelectMany(rule => series.Where(rule.FiresOn).Select(s => (rule.Alert, Database: s.Labels["database"]))).ToList();

        // Then
        Assert.Equal([("BackupXeNoCompletedRestoreDrillForEightDays", "SalesDB")], firing);
    }

    private static HistoryOperation Backup(OperationScope scope, DateTime finish) => new()
    {
        Kind = OperationKind.Backup,
        Scope = scope,
        Database = "db",
        Start = finish.AddMinutes(-1),
        End = finish,
        TimeResolutionSeconds = 1,
        Status = OperationStatus.Completed,
        Sources = [HistorySource.Msdb],
    };

    private sealed record Series(string Name, IReadOnlyDictionary<string, string> Labels, double Value);

    /// <summary>
    /// One rule's expression in the one shape the shipped rules use, <c>metric{label="value",...} op number</c>:
    /// anything else fails the test, so a rule cannot drift into a form this check does not read.
    /// </summary>
    private sealed record RuleExpression(string Alert, string Metric, IReadOnlyDictionary<string, string> Matchers, string Operator, double Threshold)
    {
        public bool FiresOn(Series series)
            => series.Name == Metric && Matchers.All(m => series.Labels.GetValueOrDefault(m.Key) == m.Value)
                && Operator switch { ">" => series.Value > Threshold, ">=" => series.Value >= Threshold, "<" => series.Value < Threshold, _ => false };
    }

    private static List<RuleExpression> RuleExpressions(string file)
    {
        var text = File.ReadAllText(Path.Combine(RepositoryRoot, file));
        var rules = new List<RuleExpression>();
        string? alert = null;
        foreach (var line in text.Split('\n'))
        {
            if (Regex.Match(line, @"^\s*-?\s*(?:alert|title):\s*(.+)$") is { Success: true } name)
            {
                alert = name.Groups[1].Value.Trim();
            }

            if (Regex.Match(line, @"^\s*expr:\s*(.+)$") is not { Success: true } expr)
            {
                continue;
            }

            var shape = Regex.Match(expr.Groups[1].Value.Trim(), @"^(backupxe_[a-z_]+)(?:\{([^}]*)\})?\s*(>=|>|<)\s*([0-9.]+)$");
            Assert.True(shape.Success, $"{file}: '{expr.Groups[1].Value}' is not metric{{labels}} op number");
            var matchers = shape.Groups[2].Value.Length == 0
                ? new Dictionary<string, string>()
                : shape.Groups[2].Value.Split(',').Select(m => m.Split('=')).ToDictionary(m => m[0].Trim(), m => m[1].Trim().Trim('"'));
            rules.Add(new RuleExpression(alert ?? "?", shape.Groups[1].Value, matchers, shape.Groups[3].Value, double.Parse(shape.Groups[4].Value, System.Globalization.CultureInfo.InvariantCulture)));
        }

        return rules;
    }

    /// <summary>The last value of each gauge series the worker recorded in <paramref name="record"/>, under its Prometheus name.</summary>
    private static List<Series> Recorded(Action<BackupXeMetrics> record, TimeProvider? time = null)
    {
        using var metrics = new BackupXeMetrics(time);
        var series = new Dictionary<string, Series>(StringComparer.Ordinal);
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter == metrics.Meter)
                {
                    l.EnableMeasurementEvents(instrument);
                }
            },
        };
        void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var labels = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (var tag in tags)
            {
                labels[tag.Key] = tag.Value?.ToString() ?? string.Empty;
            }

            var name = PrometheusName(instrument.Name, instrument.Unit, counter: false);
            series[name + string.Join(',', labels.OrderBy(l => l.Key).Select(l => $"{l.Key}={l.Value}"))] = new Series(name, labels, value);
        }

        listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Add(instrument, value, tags));
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Add(instrument, value, tags));
        listener.Start();
        record(metrics);
        // The observable gauges (a drill's age) as a collection reads them.
        listener.RecordObservableInstruments();
        return [.. series.Values];
    }

    [Fact]
    public void Every_exported_metric_is_documented_with_its_prometheus_name()
    {
        var metrics = File.ReadAllText(Path.Combine(RepositoryRoot, "docs", "metrics.md"));

        Assert.All(Instruments(), instrument =>
        {
            Assert.Contains($"`{instrument.Name}`", metrics, StringComparison.Ordinal);
            Assert.Contains($"`{PrometheusName(instrument)}`", metrics, StringComparison.Ordinal);
        });
    }

    [Fact]
    public void The_bottleneck_tag_values_documented_are_every_value_the_worker_can_export()
    {
        // The worker tags an operation with its verdict's bottleneck in kebab case (unknown without a verdict).
        var metrics = File.ReadAllText(Path.Combine(RepositoryRoot, "docs", "metrics.md"));
        var sentence = metrics[metrics.IndexOf("`bottleneck` = ", StringComparison.Ordinal)..];
        sentence = sentence[..sentence.IndexOf(')', StringComparison.Ordinal)];

        var documented = Regex.Matches(sentence, "`([a-z-]+)`").Select(match => match.Groups[1].Value).Where(value => value != "bottleneck").Order(StringComparer.Ordinal);
        var exported = Enum.GetValues<BackupXe.Core.Reporting.Bottleneck>().Select(value => BackupXe.Core.Formatting.Kebab.Of(value)).Order(StringComparer.Ordinal);

        Assert.Equal(exported, documented);
    }

    [Fact]
    public void The_collector_example_receives_otlp_and_exposes_prometheus_with_suffixes()
    {
        var config = File.ReadAllText(Path.Combine(RepositoryRoot, "deploy", "otel-collector", "config.yaml"));

        Assert.Matches(@"receivers:\s+otlp:", config);
        Assert.Matches(@"exporters:\s+prometheus:", config);
        Assert.Contains("add_metric_suffixes: true", config, StringComparison.Ordinal);
        Assert.Contains("receivers: [otlp]", config, StringComparison.Ordinal);
        Assert.Contains("exporters: [prometheus]", config, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("backupxe.operations", "{operation}", true, "backupxe_operations_total")]
    [InlineData("backupxe.operation.io", "By", true, "backupxe_operation_io_bytes_total")]
    [InlineData("backupxe.operation.duration", "s", false, "backupxe_operation_duration_seconds")]
    [InlineData("backupxe.operation.throughput", "MBy/s", false, "backupxe_operation_throughput_megabytes_per_second")]
    public void Names_are_translated_as_the_collector_does(string name, string unit, bool counter, string expected)
        => Assert.Equal(expected, PrometheusName(name, unit, counter));

    private sealed record ExportedInstrument(string Name, string? Unit, bool IsCounter, bool IsHistogram);

    /// <summary>Every series name Prometheus holds for the worker's instruments: histograms as their three series.</summary>
    private static HashSet<string> PrometheusSeries()
        => Instruments()
            .SelectMany(instrument => instrument.IsHistogram
                ? new[] { "_bucket", "_sum", "_count" }.Select(suffix => PrometheusName(instrument) + suffix)
                : [PrometheusName(instrument)])
            .ToHashSet();

    private static List<ExportedInstrument> Instruments()
    {
        using var metrics = new BackupXeMetrics();
        var instruments = new List<ExportedInstrument>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter == metrics.Meter)
                {
                    var type = instrument.GetType().GetGenericTypeDefinition();
                    instruments.Add(new ExportedInstrument(instrument.Name, instrument.Unit,
                        type == typeof(Counter<>) || type == typeof(ObservableCounter<>), type == typeof(Histogram<>)));
                }
            },
        };
        listener.Start();
        Assert.NotEmpty(instruments);
        return instruments;
    }

    private static string PrometheusName(ExportedInstrument instrument) => PrometheusName(instrument.Name, instrument.Unit, instrument.IsCounter);

    /// <summary>
    /// The Prometheus exporter's translation: dots to underscores; the unit as words ("By" bytes, "s" seconds,
    /// "MBy/s" megabytes_per_second), annotations in braces dropped; "_total" after a counter's name.
    /// </summary>
    private static string PrometheusName(string name, string? unit, bool counter)
    {
        var result = name.Replace('.', '_');
        var suffix = UnitWords(unit);
        if (suffix.Length > 0 && !result.EndsWith("_" + suffix, StringComparison.Ordinal))
        {
            result += "_" + suffix;
        }

        return counter ? result + "_total" : result;
    }

    private static string UnitWords(string? unit)
    {
        var plain = Regex.Replace(unit ?? "", @"\{[^}]*\}", "");
        if (plain.Length == 0)
        {
            return "";
        }

        var parts = plain.Split('/');
        var main = Word(parts[0], plural: true);
        return parts.Length == 2 ? $"{main}_per_{Word(parts[1], plural: false)}".Trim('_') : main;
    }

    private static string Word(string unit, bool plural) => (unit, plural) switch
    {
        ("By", _) => "bytes",
        ("MBy", _) => "megabytes",
        ("s", true) => "seconds",
        ("s", false) => "second",
        ("ms", _) => "milliseconds",
        _ => throw new InvalidOperationException($"unit {unit} has no Prometheus word in this test: add the collector's"),
    };

    private static IEnumerable<string> Expressions(JsonElement element)
    {
        if (element.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in element.EnumerateObject())
            {
                if (property.Name is "expr" or "definition" && property.Value.ValueKind == JsonValueKind.String)
                {
                    yield return property.Value.GetString()!;
                }

                foreach (var inner in Expressions(property.Value))
                {
                    yield return inner;
                }
            }
        }
        else if (element.ValueKind == JsonValueKind.Array)
        {
            foreach (var item in element.EnumerateArray())
            {
                foreach (var inner in Expressions(item))
                {
                    yield return inner;
                }
            }
        }
    }

    [GeneratedRegex(@"\bbackupxe_[a-z_]+")]
    private static partial Regex MetricName();
}
