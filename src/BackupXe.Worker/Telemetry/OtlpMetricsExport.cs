using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace BackupXe.Worker.Telemetry;

/// <summary>
/// Pushes the BackupXe meter to an OTLP collector. Built only when BackupXe:Metrics:OtlpEndpoint is set;
/// disposing it flushes and stops the exporter, so the host owns it as a singleton.
/// </summary>
public sealed class OtlpMetricsExport(Uri endpoint) : IDisposable
{
    private readonly MeterProvider _provider = Sdk.CreateMeterProviderBuilder()
        .AddMeter(BackupXeMetrics.MeterName)
        .AddOtlpExporter(exporter => exporter.Endpoint = endpoint)
        .Build();

    public void Dispose() => _provider.Dispose();
}
