using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer.Client;

public class SqlConnectionFactoryTests
{
    private static SqlConnectionStringBuilder Built(SqlConnectionSettings settings) =>
        new(new SqlConnectionFactory(settings).Create().ConnectionString);

    [Fact]
    public void Defaults_encrypt_validate_the_certificate_and_name_the_application()
    {
        // Given / When
        var built = Built(new SqlConnectionSettings("prod01"));

        // Then
        Assert.True(built.Encrypt);
        Assert.False(built.TrustServerCertificate);
        Assert.True(built.IntegratedSecurity);
        Assert.Equal("BackupXe", built.ApplicationName);
        Assert.Equal("master", built.InitialCatalog);
        Assert.Equal(15, built.ConnectTimeout);
        Assert.Equal(30, built.CommandTimeout);
        Assert.Empty(new SqlConnectionSettings("prod01").SecurityWarnings());
    }

    [Fact]
    public void Trusting_the_certificate_is_explicit_keeps_encryption_and_is_warned_about()
    {
        // Given
        var settings = new SqlConnectionSettings("prod01", TrustServerCertificate: true);

        // When
        var built = Built(settings);

        // Then
        Assert.True(built.Encrypt);
        Assert.True(built.TrustServerCertificate);
        Assert.Contains("server is not authenticated", Assert.Single(settings.SecurityWarnings()));
    }

    [Fact]
    public void Strict_encryption_and_a_host_name_in_the_certificate_reach_the_driver_and_validate_the_certificate()
    {
        // Given
        var settings = new SqlConnectionSettings("10.0.0.5,1433", StrictEncryption: true, HostNameInCertificate: "sql01.corp.example");

        // When
        var factory = new SqlConnectionFactory(settings);
        var built = new SqlConnectionStringBuilder(factory.Create().ConnectionString);

        // Then
        Assert.Equal(SqlConnectionEncryptOption.Strict, built.Encrypt);
        Assert.False(built.TrustServerCertificate);
        Assert.Equal("sql01.corp.example", built.HostNameInCertificate);
        Assert.Contains("Encrypt=Strict", factory.RedactedConnectionString, StringComparison.Ordinal);
        Assert.Contains("Host Name In Certificate=sql01.corp.example", factory.RedactedConnectionString, StringComparison.Ordinal);
        Assert.Empty(settings.SecurityWarnings());
    }

    [Fact]
    public void Without_strict_encryption_the_default_stays_mandatory_with_no_host_name_override()
    {
        var built = Built(new SqlConnectionSettings("prod01"));

        Assert.Equal(SqlConnectionEncryptOption.Mandatory, built.Encrypt);
        Assert.True(string.IsNullOrEmpty(built.HostNameInCertificate));
    }

    [Theory]
    [InlineData(true, false, true, null, "--strict-encryption and --no-encryption contradict each other")]
    [InlineData(true, true, true, null, "--trust-server-certificate would be ignored")]
    [InlineData(false, false, false, "sql01.corp.example", "needs encryption: there is no certificate to check with --no-encryption")]
    [InlineData(false, true, true, "sql01.corp.example", "is not checked when --trust-server-certificate accepts any certificate")]
    [InlineData(false, true, false, "sql01;Password=x", "--host-name-in-certificate takes a host name")]
    [InlineData(false, true, false, "", "--host-name-in-certificate takes a host name")]
    [InlineData(false, true, false, "a..b", "--host-name-in-certificate takes a host name")]
    public void Encryption_options_that_would_not_do_what_they_say_are_refused(bool strict, bool encrypt, bool trust, string? hostName, string refusal)
    {
        // Given
        var settings = new SqlConnectionSettings("prod01", Encrypt: encrypt, TrustServerCertificate: trust, StrictEncryption: strict, HostNameInCertificate: hostName);

        // When
        var problem = Assert.Single(settings.Validate());

        // Then
        Assert.Contains(refusal, problem, StringComparison.Ordinal);
        Assert.DoesNotContain("Password=x", problem, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => new SqlConnectionFactory(settings));
    }

    [Fact]
    public void Sql_logins_carry_the_password_to_the_driver_but_never_into_text()
    {
        // Given
        var settings = new SqlConnectionSettings("prod01,1433", "msdb", SqlAuthentication.SqlPassword, "dba", "p@ss;word'1");
        var factory = new SqlConnectionFactory(settings);

        // When
        var built = Built(settings);

        // Then
        Assert.Equal("p@ss;word'1", built.Password);
        Assert.Equal(SqlAuthenticationMethod.SqlPassword, built.Authentication);
        Assert.DoesNotContain("p@ss", factory.RedactedConnectionString);
        Assert.Contains("Password=***", factory.RedactedConnectionString);
        Assert.DoesNotContain("p@ss", settings.ToString());
        Assert.Contains("dba", settings.ToString());
    }

    [Theory]
    [InlineData("Server=a;Pwd='it''s;secret';User ID=u", "it''s")]
    [InlineData("Data Source=a;password=\"x;y\"", "x;y")]
    public void The_driver_builder_redacts_whatever_synonym_or_quoting_was_used(string connectionString, string secret)
    {
        var redacted = ConnectionStringRedactor.RedactWithBuilder(connectionString);
        Assert.DoesNotContain(secret, redacted);
        Assert.DoesNotContain("secret", redacted);
    }

    [Theory]
    [InlineData("127.0.0.1:1", "--server 127.0.0.1,1")]
    [InlineData("sql01.corp.example:14330", "--server sql01.corp.example,14330")]
    public void A_port_after_a_colon_is_answered_with_the_comma_spelling_before_any_connection(string server, string answer)
    {
        var problem = Assert.Single(new SqlConnectionSettings(server).Validate());
        Assert.Contains("SQL Server writes the port after a comma", problem, StringComparison.Ordinal);
        Assert.EndsWith(answer + ".", problem, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("tcp:sql01,1433")]
    [InlineData("tcp:sql01")]
    [InlineData("sql01\\SALES")]
    [InlineData("::1")]
    [InlineData("sql01,1433")]
    public void A_protocol_prefix_an_instance_or_an_IPv6_address_is_not_taken_for_host_colon_port(string server)
        => Assert.Empty(new SqlConnectionSettings(server).Validate());

    [Fact]
    public void Out_of_range_timeouts_and_a_missing_user_are_refused_with_the_setting_named()
    {
        var problems = new SqlConnectionSettings("a", Authentication: SqlAuthentication.SqlPassword, ConnectTimeoutSeconds: 0, CommandTimeoutSeconds: 100_000).Validate();
        Assert.Equal(3, problems.Count);
        Assert.Throws<ArgumentException>(() => new SqlConnectionFactory(new SqlConnectionSettings(" ")));
    }

    [Fact]
    public void The_password_comes_from_the_variable_else_the_prompt_else_a_clear_refusal()
    {
        var fromVariable = new PasswordSource(v => v == "PW" ? "env-secret" : null, _ => "typed").Obtain("PW", "dba", out _);
        var fromPrompt = new PasswordSource(_ => null, _ => "typed").Obtain("PW", "dba", out _);
        var none = new PasswordSource(_ => null, null).Obtain("PW", "dba", out var problem);

        Assert.Equal("env-secret", fromVariable);
        Assert.Equal("typed", fromPrompt);
        Assert.Null(none);
        Assert.Contains("set the environment variable PW", problem);
    }
}
