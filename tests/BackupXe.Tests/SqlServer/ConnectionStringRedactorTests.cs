using BackupXe.SqlServer;
using Xunit;

namespace BackupXe.Tests.SqlServer;

public sealed class ConnectionStringRedactorTests
{
    public sealed class Redact
    {
        [Fact]
        public void Masks_the_password_and_keeps_the_user()
        {
            var redacted = ConnectionStringRedactor.Redact("Server=db1;User ID=backupxe;Password=hunter2;Encrypt=True");

            Assert.Equal("Server=db1;User ID=backupxe;Password=***;Encrypt=True", redacted);
        }

        [Theory]
        [InlineData("Server=db1;Pwd=hunter2", "Server=db1;Pwd=***")]
        [InlineData("Server=db1;PASSWORD = hunter2", "Server=db1;PASSWORD =***")]
        [InlineData("Server=db1;AccessToken=eyJ0eXAi", "Server=db1;AccessToken=***")]
        [InlineData("Server=db1;Access Token=eyJ0eXAi", "Server=db1;Access Token=***")]
        [InlineData("Password='a;b''c';Server=db1", "Password=***;Server=db1")]
        [InlineData("Password=\"a;b\"\"c\";Server=db1", "Password=***;Server=db1")]
        [InlineData("Server=db1;;Password=x;", "Server=db1;;Password=***;")]
        public void Masks_every_secret_spelling(string connectionString, string expected)
        {
            Assert.Equal(expected, ConnectionStringRedactor.Redact(connectionString));
        }

        [Theory]
        [InlineData("Server=db1;Integrated Security=SSPI;TrustServerCertificate=True")]
        [InlineData("Server=db1;Password=")]
        [InlineData("")]
        public void Leaves_a_string_without_secrets_alone(string connectionString)
        {
            Assert.Equal(connectionString, ConnectionStringRedactor.Redact(connectionString));
        }

        [Fact]
        public void Treats_null_as_empty()
        {
            Assert.Equal(string.Empty, ConnectionStringRedactor.Redact(null));
        }
    }

    public sealed class RedactMessage
    {
        [Fact]
        public void Masks_a_spaced_quoted_password_holding_a_semicolon()
        {
            // Given / When
            var redacted = ConnectionStringRedactor.RedactMessage("pwd = 'Hunter2!; x' then");

            // Then
            Assert.DoesNotContain("Hunter2", redacted);
            Assert.EndsWith(" then", redacted);
        }

        [Fact]
        public void Hides_a_password_whose_quote_is_never_closed()
        {
            // Given / When
            var redacted = ConnectionStringRedactor.Redact("Server=db1;Password='Hunter2!");

            // Then
            Assert.DoesNotContain("Hunter2", redacted);
        }

        [Fact]
        public void Masks_a_connection_string_echoed_in_an_exception_message()
        {
            // Given the kind of message SqlClient writes when it cannot parse a connection string
            var message = "Keyword not supported: 'encrypt mode'. Connection string: 'Server=db1;User ID=sa;Password=hunter2;Encrypt Mode=1'.";

            // When
            var redacted = ConnectionStringRedactor.RedactMessage(message);

            // Then
            Assert.DoesNotContain("hunter2", redacted);
            Assert.Contains("User ID=sa", redacted);
            Assert.Contains("Password=***;Encrypt Mode=1", redacted);
        }

        [Fact]
        public void Keeps_a_login_failure_message_readable()
        {
            const string message = "Login failed for user 'backupxe'.";

            Assert.Equal(message, ConnectionStringRedactor.RedactMessage(message));
        }

        [Fact]
        public void Masks_a_quoted_password_with_a_quote_inside()
        {
            var redacted = ConnectionStringRedactor.RedactMessage("failed: pwd='it''s;secret' on db1");

            Assert.Equal("failed: pwd=*** on db1", redacted);
        }

        [Fact]
        public void Masks_the_signature_of_a_backup_to_URL_SAS()
        {
            var redacted = ConnectionStringRedactor.RedactMessage(
                "Cannot open backup device 'https://acct.blob.core.windows.net/b/x.bak?sv=2022-11-02&sig=AbC%2Bd' (error 3201).");

            Assert.Contains("?sv=2022-11-02&sig=***'", redacted);
            Assert.DoesNotContain("AbC", redacted);
        }

        [Fact]
        public void Masks_every_occurrence_on_several_lines()
        {
            var redacted = ConnectionStringRedactor.RedactMessage("Password=one\nretry with Password=two");

            Assert.Equal("Password=***\nretry with Password=***", redacted);
        }
    }
}
