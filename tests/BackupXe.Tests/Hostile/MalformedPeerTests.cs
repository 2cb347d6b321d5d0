using System.Net;
using System.Net.Sockets;
using BackupXe.Tests.Cli;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A peer that answers the TDS PRELOGIN with a packet SQL Server never sends (an option table pointing past its
/// end): the verb ends with one line that says the reply was not understood, not the driver's bare exception text.
/// </summary>
public sealed class MalformedPeerTests
{
    [Fact]
    public async Task Given_a_malformed_prelogin_reply_when_checking_the_server_then_one_line_says_the_reply_was_not_understood()
    {
        // Given
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;
        var peer = ServeAsync(listener);

        // When
        var run = await CliRun.RunAsync("check", "--server", $"127.0.0.1,{port}", "--connect-timeout", "5");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.DoesNotMatch(@": Index was outside the bounds of the array\.$", line.TrimEnd());
        Assert.Contains("could not be understood", line);
        Assert.DoesNotContain("   at ", run.Error);
        listener.Stop();
        await peer;
    }

    // Each connection gets a PRELOGIN response whose VERSION option claims 6 bytes at offset 0x40 of a 3-byte body.
    private static async Task ServeAsync(TcpListener listener)
    {
        byte[] reply = [0x04, 0x01, 0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40, 0x00, 0x06, 0xFF, 0x00, 0x00];
        try
        {
            while (true)
            {
                using var client = await listener.AcceptTcpClientAsync();
                var stream = client.GetStream();
                var request = new byte[4096];
                _ = await stream.ReadAsync(request);
                await stream.WriteAsync(reply);
                await Task.Delay(200);
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException or IOException or InvalidOperationException)
        {
            // The listener was stopped: the test is over.
        }
    }
}
