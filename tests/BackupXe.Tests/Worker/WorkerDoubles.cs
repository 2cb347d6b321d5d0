using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;

namespace BackupXe.Tests.Worker;

/// <summary>Completed operations as the pipeline would report them, with the numbers a test cares about.</summary>
internal static class Operations
{
    public static readonly DateTime Monday = new(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc);

    public static OperationReport Backup(
        string? database, DateTime start, double? throughputMBps, int? sessionId = 57,
        OperationStatus status = OperationStatus.Completed, OperationScope? scope = OperationScope.Database,
        Bottleneck bottleneck = Bottleneck.BufferStarved, OperationKind kind = OperationKind.Backup)
        => new()
        {
            Kind = kind,
            Scope = scope,
            Database = database,
            SessionId = sessionId,
            Start = start,
            End = start.AddSeconds(120),
            Status = status,
            DurationSeconds = 120,
            BytesProcessed = 14_155_776_000,
            ThroughputMBps = throughputMBps,
            BufferConfig = new BufferConfigReport { BufferCount = 7, MaxTransferSizeBytes = 1_048_576 },
            Verdict = new Verdict(bottleneck, Confidence.High, ["BACKUPBUFFER 81% of writer time"]),
            Recommendations = [new Recommendation("raise-buffercount", "Raise BUFFERCOUNT.", "BACKUP DATABASE [Sales] TO DISK = N'x' WITH BUFFERCOUNT = 64;")],
        };

    /// <summary>One backup a night at 01:00 for <paramref name="throughputs"/>.Length nights before <paramref name="before"/>.</summary>
    public static IEnumerable<OperationReport> Nightly(string database, DateTime before, params double[] throughputs)
        => throughputs.Select((throughput, night) => Backup(database, before.AddDays(-(throughputs.Length - night)), throughput));
}

/// <summary>A source that yields the given events, or throws once it has been asked to read.</summary>
internal sealed class ScriptedSource(string name, IReadOnlyList<TraceEvent> events, string format = "xe-xml", Exception? failure = null)
    : ITraceEventSource
{
    public string Name => name;

    public string Format => format;

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        foreach (var traceEvent in events)
        {
            await Task.Yield();
            status.Events++;
            yield return traceEvent;
        }

        if (failure is not null)
        {
            throw failure;
        }
    }
}

/// <summary>Stands in for the pipeline: reads the whole source, then yields the operations scripted for it.</summary>
internal sealed class ScriptedAnalyzer(IReadOnlyDictionary<string, IReadOnlyList<OperationReport>> operationsBySource) : IOperationAnalyzer
{
    public async IAsyncEnumerable<OperationReport> AnalyzeAsync(
        ITraceEventSource source, SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var _ in source.ReadEventsAsync(status, cancellationToken))
        {
        }

        foreach (var report in operationsBySource.GetValueOrDefault(source.Name) ?? [])
        {
            yield return report;
        }
    }
}

/// <summary>Opens sources with a function per instance and counts how often each was opened.</summary>
internal sealed class ScriptedSourceFactory(Func<InstanceOptions, int, ITraceEventSource> open) : IInstanceSourceFactory
{
    private readonly Dictionary<string, int> _opened = [];

    public int OpenedCount(string instance)
    {
        lock (_opened)
        {
            return _opened.GetValueOrDefault(instance);
        }
    }

    public ITraceEventSource Open(InstanceOptions instance)
    {
        int attempt;
        lock (_opened)
        {
            attempt = _opened.GetValueOrDefault(instance.Name!) + 1;
            _opened[instance.Name!] = attempt;
        }

        return open(instance, attempt);
    }
}

internal sealed class TempDirectory : IDisposable
{
    public TempDirectory() => Directory.CreateDirectory(Path);

    public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "backupxe-tests-" + Guid.NewGuid().ToString("N"));

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose() => Directory.Delete(Path, recursive: true);
}

internal static class Eventually
{
    /// <summary>Waits for a condition another task makes true; fails the test rather than hanging.</summary>
    public static async Task TrueAsync(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"Timed out waiting for: {what}");
            }

            await Task.Delay(10);
        }
    }
}
