using System.Text.Json;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Rendering.Support;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Rendering;

/// <summary>
/// The hand-written JSON writer (<see cref="ReportJsonFields"/>) against the serializer with the contract's options,
/// which stays the definition and the reader: same bytes for every real report, every generated one, and a check
/// that no public property of a report type is left out.
/// </summary>
public sealed class ReportJsonFieldsTests
{
    // Enough to meet every enum value and odd string many times over; a second or two of the suite.
    private const int Cases = 300;

    private static Config Seeded(ulong seed, int cases) => Config.QuickThrowOnFailure.WithMaxTest(cases).WithReplay(seed, 0x9E3779B97F4A7C15UL);

    /// <summary>samples/ and every fixture (errorlog, realworld, xel), by a path the theory can show.</summary>
    public static TheoryData<string> Inputs() => new(InputNames());

    private static IEnumerable<string> InputNames()
    {
        var samples = Path.GetDirectoryName(CliRun.Sample("log-zeroing-restore.log"))!;
        var fixtures = Path.Combine(AppContext.BaseDirectory, "Fixtures");
        return Directory.GetFiles(samples).Select(path => Path.Combine("samples", Path.GetFileName(path)))
            .Concat(Directory.GetFiles(fixtures, "*", SearchOption.AllDirectories).Select(path => Path.Combine("Fixtures", Path.GetRelativePath(fixtures, path))))
            .Order(StringComparer.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Inputs))]
    public async Task Every_report_of_a_real_input_is_written_as_the_serializer_writes_it(string input)
    {
        // Given the input analysed as analyze does
        var (operations, findings) = await AnalyseAsync([Resolve(input)]);

        // When / Then: the streamed document, and each operation on its own, compact and indented (the daemon's report_json)
        Assert.Equal(SerializerOracle.Document(operations, findings), SerializerOracle.Streamed(operations, findings));
        foreach (var operation in operations)
        {
            Assert.Equal(SerializerOracle.Serialize(operation, indented: false), ReportJson.Serialize(operation));
            Assert.Equal(SerializerOracle.Serialize(operation, indented: true), ReportJson.Serialize(operation, indented: true));
        }
    }

    [Fact]
    public async Task All_real_inputs_merged_into_one_report_are_written_as_the_serializer_writes_them()
    {
        // Given every sample and fixture in one run: many inputs, their problems, the merged operations
        var (operations, findings) = await AnalyseAsync([.. InputNames().Select(Resolve)]);

        // When / Then
        Assert.NotEmpty(operations);
        Assert.Equal(InputNames().Count(), findings.Inputs.Count);
        Assert.Equal(SerializerOracle.Document(operations, findings), SerializerOracle.Streamed(operations, findings));
    }

    [Fact]
    public void Generated_operations_are_written_as_the_serializer_writes_them()
    {
        var written = 0;
        Prop.ForAll(GeneratedReports.Operation.ToArbitrary(), operation =>
        {
            var compact = Outcome(() => SerializerOracle.Serialize(operation, indented: false));
            Assert.Equal(compact, Outcome(() => ReportJson.Serialize(operation)));
            Assert.Equal(Outcome(() => SerializerOracle.Serialize(operation, indented: true)), Outcome(() => ReportJson.Serialize(operation, indented: true)));
            written += compact.StartsWith('{') ? 1 : 0;
        }).Check(Seeded(20261122, cases: Cases));

        // Agreeing by both throwing proves little: nearly every generated report must be written.
        Assert.True(written > Cases * 9 / 10, $"only {written} of {Cases} generated operations were written");
    }

    [Fact]
    public void Generated_documents_with_their_inputs_and_summary_are_written_as_the_serializer_writes_them()
    {
        var documents =
            from operations in Gen.Choose(0, 5).SelectMany(count => Gen.ListOf(GeneratedReports.Operation, count))
            from findings in GeneratedReports.Findings
            select (Operations: operations.ToList(), Findings: findings);

        Prop.ForAll(documents.ToArbitrary(), document =>
            Assert.Equal(
                Outcome(() => SerializerOracle.Document(document.Operations, document.Findings)),
                Outcome(() => SerializerOracle.Streamed(document.Operations, document.Findings))))
            .Check(Seeded(10, cases: 100));
    }

    [Fact]
    public void Every_enum_value_is_spelled_as_the_serializer_spells_it()
    {
        // Given one operation per value of each enum the report carries (a verdict per bottleneck and confidence)
        var operations =
            from kind in Enum.GetValues<OperationKind>()
            from status in Enum.GetValues<OperationStatus>()
            from scope in Enum.GetValues<OperationScope>().Select(s => (OperationScope?)s).Append(null)
            from attribution in Enum.GetValues<WaitAttribution>().Select(a => (WaitAttribution?)a).Append(null)
            select new OperationReport { Kind = kind, Status = status, Scope = scope, WaitAttribution = attribution };
        var verdicts =
            from bottleneck in Enum.GetValues<Bottleneck>()
            from confidence in Enum.GetValues<Confidence>()
            select new OperationReport { Kind = OperationKind.Backup, Status = OperationStatus.Completed, Verdict = new Verdict(bottleneck, confidence, []) };

        // When / Then
        foreach (var operation in operations.Concat(verdicts))
        {
            Assert.Equal(SerializerOracle.Serialize(operation, indented: false), ReportJson.Serialize(operation));
        }
    }

    [Fact]
    public void A_value_outside_an_enum_is_refused_as_the_serializer_refuses_it()
    {
        var operation = new OperationReport { Kind = OperationKind.Backup, Status = (OperationStatus)7 };

        Assert.Throws<JsonException>(() => SerializerOracle.Serialize(operation, indented: false));
        Assert.Throws<JsonException>(() => ReportJson.Serialize(operation));
    }

    public static TheoryData<string> ReportTypes => [nameof(OperationReport), nameof(InputReport), nameof(SummaryReport)];

    [Theory]
    [MemberData(nameof(ReportTypes))]
    public void Every_public_property_of_the_report_types_is_written(string root)
    {
        // Given a value with every property of every nested type set (found by reflection, so a new property is set too)
        (string Serialized, string Written) json = root switch
        {
            nameof(OperationReport) => Both(FullyPopulated.Of<OperationReport>(), (writer, report) => ReportJsonFields.Write(writer, report, new EscapedJsonCache())),
            nameof(InputReport) => Both(FullyPopulated.Of<IReadOnlyList<InputReport>>(), ReportJsonFields.Write),
            _ => Both(FullyPopulated.Of<SummaryReport>(), ReportJsonFields.Write),
        };

        // When the property names each writes are listed by where they sit
        var serialized = PropertyPaths(json.Serialized);
        var written = PropertyPaths(json.Written);

        // Then the same names, none left null by the population, and the same bytes
        var missing = serialized.Except(written).ToList();
        var extra = written.Except(serialized).ToList();
        Assert.True(missing.Count == 0, $"ReportJsonFields does not write {string.Join(", ", missing)}: add it where the serializer writes it");
        Assert.True(extra.Count == 0, $"ReportJsonFields writes {string.Join(", ", extra)}, which the serializer does not");
        Assert.DoesNotContain("null", json.Serialized, StringComparison.Ordinal);
        Assert.Equal(json.Serialized, json.Written);
    }

    private static (string Serialized, string Written) Both<T>(T value, Action<Utf8JsonWriter, T> write)
        => (SerializerOracle.Serialize(value, indented: true), SerializerOracle.Written(json => write(json, value), indented: true));

    /// <summary>Every property as <c>operations[].verdict.bottleneck</c>: its name and where it sits.</summary>
    private static SortedSet<string> PropertyPaths(string json)
    {
        var paths = new SortedSet<string>(StringComparer.Ordinal);
        using var document = JsonDocument.Parse(json);
        Walk(document.RootElement, "$");
        return paths;

        void Walk(JsonElement element, string path)
        {
            switch (element.ValueKind)
            {
                case JsonValueKind.Object:
                    foreach (var property in element.EnumerateObject())
                    {
                        paths.Add($"{path}.{property.Name}");
                        Walk(property.Value, $"{path}.{property.Name}");
                    }

                    break;
                case JsonValueKind.Array:
                    foreach (var item in element.EnumerateArray())
                    {
                        Walk(item, $"{path}[]");
                    }

                    break;
            }
        }
    }

    /// <summary>The text written, or the type of what was thrown: the two writers must agree on both.</summary>
    private static string Outcome(Func<string> write)
    {
        try
        {
            return write();
        }
        catch (Exception exception) when (exception is JsonException or ArgumentException or InvalidOperationException)
        {
            return $"threw {exception.GetType().Name}";
        }
    }

    private static string Resolve(string input)
        => input.StartsWith("samples", StringComparison.Ordinal)
            ? CliRun.Sample(Path.GetFileName(input))
            : Path.Combine(AppContext.BaseDirectory, input);

    private static async Task<(List<OperationReport> Operations, AnalysisFindings Findings)> AnalyseAsync(IReadOnlyList<string> paths)
    {
        var operations = new Collected();
        var findings = await new AnalysisSession(InputSources.OpenAll(paths).Sources).RunAsync(operations, CancellationToken.None);
        return (operations, findings);
    }

    private sealed class Collected : List<OperationReport>, IOperationSink
    {
        public void OnOperationCompleted(OperationReport report) => Add(report);
    }
}
