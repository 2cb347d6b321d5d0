using BackupXe.Worker.Logging;
using Xunit;

namespace BackupXe.Tests.Worker;

public sealed class ConnectionStringsTests
{
    [Theory]
    [InlineData("Server=db1;Database=msdb;User ID=backupxe;Password=Hunter2!", "server=db1;database=msdb;user id=backupxe;password=*****")]
    [InlineData("Data Source=db1;PWD=Hunter2!;Encrypt=True", "data source=db1;pwd=*****;encrypt=True")]
    [InlineData("Server=db1;Integrated Security=true", "server=db1;integrated security=true")]
    public void Redact_masks_secrets_and_keeps_the_server_readable(string connectionString, string expected)
    {
        Assert.Equal(expected, ConnectionStrings.Redact(connectionString));
    }

    [Fact]
    public void Redact_hides_a_string_it_cannot_parse()
    {
        Assert.Equal("(unparseable connection string, hidden)", ConnectionStrings.Redact("Server=db1;Password='Hunter2!"));
    }

    [Theory]
    [InlineData("Login failed: Server=db1;Password=Hunter2!;Encrypt=True", "Login failed: Server=db1;Password=*****;Encrypt=True")]
    [InlineData("pwd = 'Hunter2!; x' then", "pwd=***** then")]
    public void Scrub_masks_secrets_inside_free_text(string text, string expected)
    {
        Assert.Equal(expected, ConnectionStrings.Scrub(text));
    }
}
