using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using Xunit;

namespace BackupXe.Tests.Correlation;

/// <summary>The correlator's set of operations: its count and its lookups by session.</summary>
public sealed class OperationSetTests
{
    private static readonly DateTime Start = new(2024, 6, 1, 0, 0, 0, DateTimeKind.Unspecified);
    private long _sequence;

    [Fact]
    public void A_session_looked_up_again_after_its_operations_left_and_a_new_one_came_finds_the_new_one()
    {
        // Given session 51's backup, looked up (and so remembered), then removed
        var set = new OperationSet();
        var first = Operation(51);
        set.Add(first);
        Assert.Same(first, set.LastOfSession(51, _ => true));
        Assert.True(set.Remove(first));
        Assert.Null(set.LastOfSession(51, _ => true));

        // When the session starts another one
        var second = Operation(51);
        set.Add(second);

        // Then the lookup finds it, not the list the first one left
        Assert.Same(second, set.LastOfSession(51, _ => true));
        Assert.Equal(1, set.Count);
    }

    [Fact]
    public void The_count_follows_adds_removes_of_what_is_not_there_and_clear()
    {
        var set = new OperationSet();
        var (a, b) = (Operation(51), Operation(null));
        set.Add(a);
        set.Add(b);
        Assert.Equal(2, set.Count);
        Assert.Null(set.Only);

        Assert.True(set.Remove(a));
        Assert.False(set.Remove(a));
        Assert.Equal(1, set.Count);
        Assert.Same(b, set.Only);

        set.Clear();
        Assert.Equal(0, set.Count);
        Assert.Null(set.LastOfSession(51, _ => true));
    }

    private BackupOperation Operation(int? session) =>
        new(OperationKind.Backup, OperationScope.Database, "Db", session, Start, startObserved: true) { Sequence = ++_sequence };
}
