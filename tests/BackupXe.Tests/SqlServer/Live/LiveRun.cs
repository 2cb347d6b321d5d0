using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live;

/// <summary>A consumer of a <see cref="ResilientLiveSource"/> driven step by step by a test.</summary>
internal sealed class LiveRun : IAsyncDisposable
{
    private static readonly TimeSpan SafetyTimeout = TimeSpan.FromSeconds(10);

    private readonly CancellationTokenSource _cancellation = new();
    private readonly IAsyncEnumerator<TraceEvent> _events;
    private Task<bool>? _pending;

    public LiveRun(ResilientLiveSource source)
    {
        Source = source;
        _events = source.ReadEventsAsync(Status, _cancellation.Token).GetAsyncEnumerator();
    }

    public ResilientLiveSource Source { get; }

    public SourceStatus Status { get; } = new();

    /// <summary>Asks for the next event without waiting for it (the pipeline starts on the first ask).</summary>
    public Task<bool> Ask() => _pending ??= _events.MoveNextAsync().AsTask();

    /// <summary>The next event; fails the test if the sequence ends or nothing comes.</summary>
    public async Task<TraceEvent> NextAsync()
    {
        var more = await Ask().WaitAsync(SafetyTimeout);
        _pending = null;
        Assert.True(more, "The live sequence ended; problems: " + string.Join(" | ", Status.Problems.Select(p => p.Message)));
        return _events.Current;
    }

    /// <summary>Waits for the sequence to end by itself; fails if it yields another event.</summary>
    public async Task EndsAsync()
    {
        var more = await Ask().WaitAsync(SafetyTimeout);
        _pending = null;
        Assert.False(more, "Expected the live sequence to end.");
    }

    public void Cancel() => _cancellation.Cancel();

    public async ValueTask DisposeAsync()
    {
        _cancellation.Cancel();
        if (_pending is not null)
        {
            await _pending.WaitAsync(SafetyTimeout);
        }

        await _events.DisposeAsync();
        _cancellation.Dispose();
    }

    /// <summary>Waits on a condition reached by another task; polls briefly, the timeout only catches hangs.</summary>
    public static async Task Until(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow + SafetyTimeout;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "Timed out waiting until " + what);
            await Task.Delay(1);
        }
    }
}
