using System.Diagnostics;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// Polls the managed heap and the working set on a background thread while one run is under way, keeping the
/// maxima. Polling is used because the runtime exposes no resettable per-interval peak: PeakWorkingSet64 is a
/// lifetime figure, and the input generation earlier in the same process would dominate it.
/// </summary>
public sealed class MemorySampler : IDisposable
{
    private readonly Thread _thread;
    private readonly TimeSpan _interval;
    private readonly ManualResetEventSlim _stop = new(false);
    private readonly Process _process = Process.GetCurrentProcess();

    public MemorySampler(TimeSpan interval)
    {
        _interval = interval;
        // A dedicated background thread, not the thread pool: the pipeline under test runs on pool threads and
        // a starved pool would make the samples late exactly when memory is highest.
        _thread = new Thread(Loop) { IsBackground = true, Name = "memory-sampler", Priority = ThreadPriority.AboveNormal };
        _thread.Start();
    }

    /// <summary>Largest GC.GetTotalMemory(false) seen: live objects plus garbage not yet collected.</summary>
    public long PeakTotalMemory { get; private set; }

    /// <summary>Largest GCMemoryInfo.HeapSizeBytes seen: the heap as of the most recent collection.</summary>
    public long PeakHeapSize { get; private set; }

    /// <summary>Largest working set seen during the run (bytes of physical memory the process held).</summary>
    public long PeakWorkingSet { get; private set; }

    public int Samples { get; private set; }

    private void Loop()
    {
        do
        {
            Sample();
        }
        while (!_stop.Wait(_interval));
    }

    private void Sample()
    {
        PeakTotalMemory = Math.Max(PeakTotalMemory, GC.GetTotalMemory(false));
        PeakHeapSize = Math.Max(PeakHeapSize, GC.GetGCMemoryInfo().HeapSizeBytes);
        _process.Refresh();
        PeakWorkingSet = Math.Max(PeakWorkingSet, _process.WorkingSet64);
        Samples++;
    }

    public void Dispose()
    {
        _stop.Set();
        _thread.Join();
        // One last sample so a run shorter than the interval still reports its end state.
        Sample();
        _process.Dispose();
        _stop.Dispose();
    }
}
