using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using Xunit;

namespace BackupXe.Tests.SqlServer.Client;

/// <summary>The table of error numbers (SqlErrorNumbers) as the classifier reads it. Real SqlExceptions from the
/// driver are classified in TdsServerDoubleTests; these cover the numbers a double run does not raise.</summary>
public class SqlFailureClassifierTests
{
    [Theory]
    [InlineData(18456, 14)] // login failed
    [InlineData(18488, 14)] // password must change
    [InlineData(229, 14)] // object permission denied
    [InlineData(300, 14)] // VIEW SERVER STATE denied
    [InlineData(297, 16)] // no permission for the action
    [InlineData(15247, 16)]
    [InlineData(102, 15)] // a syntax error: ours, and not cured by retrying
    [InlineData(25718, 16)] // event file name invalid or unreadable
    [InlineData(25719, 16)] // initial file name and offset not paired: ours
    [InlineData(25722, 16)] // offset invalid for the file
    public void Refusals_and_our_own_errors_are_fatal(int number, byte @class) =>
        Assert.Equal(LiveFailureKind.Fatal, SqlFailureClassifier.Classify(number, @class));

    [Theory]
    [InlineData(15151, 16)] // ALTER/DROP on a session that does not exist
    [InlineData(25706, 16)]
    [InlineData(25727, 16)] // stopped or dropped while streaming
    [InlineData(25728, 16)]
    public void A_missing_session_is_session_missing(int number, byte @class) =>
        Assert.Equal(LiveFailureKind.SessionMissing, SqlFailureClassifier.Classify(number, @class));

    [Theory]
    [InlineData(0, 20)] // connection refused or dropped (measured)
    [InlineData(0, 11)] // command cancelled (measured)
    [InlineData(-2, 11)] // timeout (measured)
    [InlineData(25631, 16)] // session already exists: another installer won the race
    [InlineData(25705, 16)] // already started
    [InlineData(25726, 17)] // stream disconnected, too many outstanding events
    [InlineData(942, 14)] // database offline
    [InlineData(1205, 13)] // deadlock victim
    [InlineData(40613, 17)]
    [InlineData(10054, 20)]
    [InlineData(3980, 20)] // any severity-20+ error closes the connection: reconnect
    public void Network_timeouts_and_races_are_transient(int number, byte @class) =>
        Assert.Equal(LiveFailureKind.Transient, SqlFailureClassifier.Classify(number, @class));

    [Theory]
    [InlineData(4060, 11)] // cannot open database: recovering or failing over
    [InlineData(1204, 19)]
    [InlineData(1222, 16)] // lock request timeout
    [InlineData(40143, 16)]
    [InlineData(40540, 16)]
    public void Given_an_error_SqlClient_documents_as_transient_When_classified_Then_it_is_retried(int number, byte @class) =>
        Assert.Equal(LiveFailureKind.Transient, SqlFailureClassifier.Classify(number, @class));

    [Theory]
    [InlineData(25717, 16)] // the OS failed a read of the event file
    [InlineData(25736, 16)] // a damaged buffer in an event file
    public void Given_an_event_file_read_error_that_can_pass_When_classified_Then_the_watch_goes_on(int number, byte @class) =>
        Assert.Equal(LiveFailureKind.Transient, SqlFailureClassifier.Classify(number, @class));

    [Theory]
    [InlineData(4060, 18456)] // a login whose database is recovering or failing over: the pair SQL Server sends
    [InlineData(18456, 4060)]
    [InlineData(40540, 18456)]
    [InlineData(1205, 229)]
    public void Given_a_reply_with_any_number_SqlClient_documents_as_transient_When_classified_Then_it_is_retried_whatever_else_it_holds(int first, int second) =>
        Assert.Equal(LiveFailureKind.Transient, SqlFailureClassifier.Classify([(first, (byte)14), (second, (byte)14)]));

    [Fact]
    public void A_fault_thrown_inside_the_driver_is_a_driver_fault_and_the_same_type_thrown_elsewhere_is_not()
    {
        // Given an ArgumentOutOfRangeException raised by SqlClient's own code (a negative capacity to its builder)
        var inside = Assert.ThrowsAny<ArgumentException>(() => new Microsoft.Data.SqlClient.SqlConnectionStringBuilder { ConnectTimeout = -1 });
        var outside = Assert.Throws<ArgumentOutOfRangeException>(() => ArgumentOutOfRangeException.ThrowIfNegative(-1));

        // Then
        Assert.Equal(LiveFailureKind.DriverFault, new SqlFailureClassifier().Classify(inside));
        Assert.NotEqual(LiveFailureKind.DriverFault, new SqlFailureClassifier().Classify(outside));
        Assert.DoesNotContain("login", SqlFailureText.DriverFault(inside), StringComparison.OrdinalIgnoreCase);
        Assert.Contains(inside.GetType().Name, SqlFailureText.DriverFault(inside), StringComparison.Ordinal);
    }

    [Fact]
    public void A_refusal_anywhere_in_the_errors_wins_over_a_missing_session()
    {
        var kind = SqlFailureClassifier.Classify([(15151, (byte)16), (297, (byte)16)]);
        Assert.Equal(LiveFailureKind.Fatal, kind);
    }

    [Fact]
    public void A_missing_session_wins_over_a_transient_error()
    {
        var kind = SqlFailureClassifier.Classify([(25728, (byte)16), (-2, (byte)11)]);
        Assert.Equal(LiveFailureKind.SessionMissing, kind);
    }

    [Fact]
    public void Io_and_socket_failures_are_transient_and_unknown_ones_fatal()
    {
        var classifier = new SqlFailureClassifier();
        Assert.Equal(LiveFailureKind.Transient, classifier.Classify(new IOException("reset")));
        Assert.Equal(LiveFailureKind.Transient, classifier.Classify(new System.Net.Sockets.SocketException(10054)));
        Assert.Equal(LiveFailureKind.Fatal, classifier.Classify(new ServerRequirementException([new RequirementProblem(RequirementKind.VersionTooOld, "old")])));
    }
}
