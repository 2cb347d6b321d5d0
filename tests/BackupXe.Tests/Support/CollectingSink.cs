using System.Collections.Concurrent;
using Serilog;
using Serilog.Core;
using Serilog.Events;
using Serilog.Formatting.Json;

namespace BackupXe.Tests.Support;

/// <summary>Keeps every Serilog event so that tests can assert on messages and structured properties.</summary>
public sealed class CollectingSink : ILogEventSink
{
    private readonly ConcurrentQueue<LogEvent> _events = new();

    public IReadOnlyList<LogEvent> Events => [.. _events];

    public void Emit(LogEvent logEvent) => _events.Enqueue(logEvent);

    /// <summary>A Serilog logger writing here at every level.</summary>
    public Logger CreateLogger() => new LoggerConfiguration().MinimumLevel.Verbose().WriteTo.Sink(this).CreateLogger();

    /// <summary>Everything a JSON file sink would have written: message template, properties, exception.</summary>
    public string RenderAsJson()
    {
        var formatter = new JsonFormatter(renderMessage: true);
        using var writer = new StringWriter();
        foreach (var logEvent in _events)
        {
            formatter.Format(logEvent, writer);
        }

        return writer.ToString();
    }

    public IReadOnlyList<LogEvent> WithEventId(int id)
        => [.. _events.Where(logEvent => logEvent.Properties.TryGetValue("EventId", out var value)
                                         && value is StructureValue structure
                                         && structure.Properties.Any(p => p.Name == "Id" && p.Value.ToString() == id.ToString(System.Globalization.CultureInfo.InvariantCulture)))];
}

public static class LogEventExtensions
{
    /// <summary>A scalar property's raw value (null when absent or not scalar).</summary>
    public static object? Scalar(this LogEvent logEvent, string name)
        => logEvent.Properties.TryGetValue(name, out var value) && value is ScalarValue scalar ? scalar.Value : null;
}
