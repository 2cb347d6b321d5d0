using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering.Html;

// The JSON blocks the HTML report's charts read (docs/html-report.md), as named types so that their metadata is made
// at compile time (ReportJsonContext): the native build has no reflection serializer. Names become camelCase keys.

/// <summary>One operation's charts; a chart with nothing to draw is null and left out of the block.</summary>
internal sealed record OperationChartData(TimelineChartData? Timeline, RateChartData? Rate, WaitsChartData? Waits, MemoryChartData? Memory);

/// <summary>The timeline's lanes: label, group (phase, read, zero) and their two ends, in seconds from the origin.</summary>
internal sealed record TimelineChartData(IEnumerable<string> Labels, IEnumerable<string> Groups, IEnumerable<double> Start, IEnumerable<double> End, double Total);

/// <summary>The copy rate as steps (<c>T</c> one longer than the rates' intervals) with the phases behind it.</summary>
internal sealed record RateChartData(IEnumerable<double> T, IEnumerable<double> Mbps, IEnumerable<PhaseSpanData> Phases, double Total);

internal sealed record PhaseSpanData(string Name, double Start, double End);

internal sealed record WaitsChartData(IEnumerable<string> Types, IEnumerable<double> TotalSeconds);

internal sealed record MemoryChartData(IEnumerable<string> Labels, IEnumerable<double> Megabytes);

/// <summary>The history page's chart: throughput per series over time and the regressions circled on it.</summary>
internal sealed record HistoryChartData(HistoryChart History);

internal sealed record HistoryChart(IEnumerable<ThroughputSeries> Series, ThroughputPoints Regressions);

/// <summary>Times are Unix seconds of the input's wall clock, read as UTC.</summary>
internal sealed record ThroughputSeries(string Name, IEnumerable<double> At, IEnumerable<double> Mbps);

internal sealed record ThroughputPoints(IEnumerable<double> At, IEnumerable<double> Mbps);
