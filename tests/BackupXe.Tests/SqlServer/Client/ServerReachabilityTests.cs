using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using Xunit;

namespace BackupXe.Tests.SqlServer.Client;

/// <summary>Which Data Source forms are probed before the login, and at which host and port.</summary>
public sealed class ServerReachabilityTests
{
    [Theory]
    [InlineData("sql01", "sql01", 1433)]
    [InlineData("sql01,14330", "sql01", 14330)]
    [InlineData("tcp:sql01,1500", "sql01", 1500)]
    [InlineData(@"sql01\PROD,1433", "sql01", 1433)]
    [InlineData("127.0.0.1,1", "127.0.0.1", 1)]
    [InlineData(".", "localhost", 1433)]
    [InlineData("(local),2000", "localhost", 2000)]
    public void A_data_source_with_a_known_port_is_probed_there(string server, string host, int port)
        => Assert.Equal((host, port), ServerReachability.Endpoint(server));

    [Theory]
    [InlineData(@"sql01\PROD")]
    [InlineData(@"np:\\sql01\pipe\sql\query")]
    [InlineData("lpc:sql01")]
    [InlineData("sql01,notaport")]
    [InlineData("sql01,70000")]
    [InlineData("(localdb)")]
    public void A_named_instance_a_pipe_or_an_odd_port_goes_to_the_driver_unprobed(string server)
        => Assert.Null(ServerReachability.Endpoint(server));
}
