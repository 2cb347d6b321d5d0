using System.Diagnostics.Metrics;
using System.Text.Json;
using System.Text.RegularExpressions;
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
