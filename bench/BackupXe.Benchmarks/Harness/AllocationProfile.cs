using System.Diagnostics.Tracing;
using System.Globalization;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// Which types a stage allocates, from the runtime's own sampling: the GC raises <c>GCAllocationTick</c> about every
/// 100 KB allocated, naming the type of the object that crossed the mark, so the count of ticks per type times
/// 100 KB estimates its share. A sample, not an exact count; enough to say where the megabytes go.
/// </summary>
public static class AllocationProfile
{
    public static int Run(string path, string stage)
    {
        // Once without listening, so that start-up and JIT allocations are not counted.
        StageBenchmark.Run(path, 1, [stage]);
        var listener = new AllocationTicks();
        var before = GC.GetTotalAllocatedBytes(precise: true);
        StageBenchmark.Run(path, 1, [stage]);
        var total = GC.GetTotalAllocatedBytes(precise: true) - before;
        listener.Dispose();

        var ticks = listener.Ticks.Sum(t => t.Value);
        Console.WriteLine($"| type | sampled MB | share |");
        Console.WriteLine("|---|---:|---:|");
        foreach (var (type, bytes) in listener.Ticks.OrderByDescending(t => t.Value).Take(30))
        {
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {type} | {bytes / 1e6:F1} | {bytes / (double)ticks:P1} |"));
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"allocated in all: {total / 1e6:F0} MB, sampled {ticks / 1e6:F0} MB"));
        return 0;
    }

    private sealed class AllocationTicks : EventListener
    {
        private const EventKeywords GcKeyword = (EventKeywords)0x1;

        public Dictionary<string, long> Ticks { get; } = [];

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(eventSource, EventLevel.Verbose, GcKeyword);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
            if (eventData.EventName is not { } name || !name.StartsWith("GCAllocationTick", StringComparison.Ordinal) || eventData.Payload is null)
            {
                return;
            }

            var index = eventData.PayloadNames!.IndexOf("TypeName");
            var amountIndex = eventData.PayloadNames.IndexOf("AllocationAmount64");
            var type = index >= 0 ? eventData.Payload[index] as string ?? "?" : "?";
            var amount = amountIndex >= 0 ? Convert.ToInt64(eventData.Payload[amountIndex], CultureInfo.InvariantCulture) : 100_000;
            lock (Ticks)
            {
                Ticks[type] = Ticks.GetValueOrDefault(type) + amount;
            }
        }
    }
}
