using BackupXe.Tests.Cli;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A connection string pasted into <c>--server</c>, password and all: every server verb refuses it as a usage
/// error before connecting, and no message repeats the password.
/// </summary>
public class ServerArgumentTests
{
    private const string Pasted = "Server=127.0.0.1,1;User ID=sa;Password=hunter2";

    [Theory]
    [InlineData("check")]
    [InlineData("history import")]
    [InlineData("session status")]
    [InlineData("watch")]
    public async Task Given_a_connection_string_as_the_server_when_a_server_verb_runs_then_it_is_a_usage_error_without_the_password(string verb)
    {
        // Given
        string[] args = [.. verb.Split(' '), "--server", Pasted, "--connect-timeout", "1"];

        // When
        var run = await CliRun.RunAsync(args);

        // Then
        Assert.True(run.ExitCode == 1, $"exit {run.ExitCode}\n{run.Error}\n{run.Output}");
        Assert.Contains("not a connection string", run.Error);
        Assert.DoesNotContain("hunter2", run.Error + run.Output);
        Assert.DoesNotContain("   at ", run.Error);
    }
}
