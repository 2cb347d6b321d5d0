using System.Text.Json.Serialization;
using BackupXe.Core.Analysis;
using BackupXe.Core.Baselines;
using BackupXe.Core.History;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;

namespace BackupXe.Core.Rendering;

/// <summary>
/// Compile-time metadata for the report types, so that writing JSON needs no reflection and no emitted accessors:
/// building them was a visible share of a short <c>analyze --format json</c> (docs/performance.md, "Choices in the code
/// and the figures behind them"). The contract itself stays in <see cref="ReportJson"/>: its options decide the names and
/// the enum spelling, and the output is byte for byte what the reflection resolver wrote.
/// </summary>
[JsonSerializable(typeof(OperationReport))]
[JsonSerializable(typeof(AnalysisFindings))]
[JsonSerializable(typeof(IReadOnlyList<InputReport>))]
[JsonSerializable(typeof(SummaryReport))]
[JsonSerializable(typeof(IReadOnlyList<RunsComparedReport>))]
[JsonSerializable(typeof(IReadOnlyList<InputFindingReport>))]
[JsonSerializable(typeof(HistoryOperation))]
[JsonSerializable(typeof(SeriesListing))]
[JsonSerializable(typeof(BaselineComparisonReport))]
[JsonSerializable(typeof(OperationChartData))]
[JsonSerializable(typeof(HistoryChartData))]
[JsonSerializable(typeof(TuneRecord))]
[JsonSerializable(typeof(IReadOnlyList<TuneRecord>))]
[JsonSerializable(typeof(Drill.StoredDrill))]
internal sealed partial class ReportJsonContext : JsonSerializerContext;
