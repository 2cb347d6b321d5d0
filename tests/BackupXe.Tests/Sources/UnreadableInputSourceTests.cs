using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class UnreadableInputSourceTests
{
    [Fact]
    public void A_missing_file_is_read_at_once_with_no_events_and_says_why_when_read()
    {
        // Given a path that names no file
        using var nowhere = TempInput.Nowhere();
        var source = InputSources.Open(nowhere.Path);
        var status = new SourceStatus();

        // Then it is read in step, as a file is (so that files merged with it stay on the synchronous path), with no
        // thread of its own, and says nothing before it is read
        var synchronous = Assert.IsAssignableFrom<ISynchronousTraceEventSource>(source);
        Assert.False(Assert.IsAssignableFrom<IReadAheadAdvice>(source).ReadAheadPays);
        var events = synchronous.ReadEvents(status, CancellationToken.None);
        Assert.Empty(status.Problems);

        // When it is read
        Assert.Empty(events.ToList());

        // Then
        Assert.True(status.Unusable);
        Assert.Equal(InputSources.FileNotFound, Assert.Single(status.Problems).Message);
    }
}
