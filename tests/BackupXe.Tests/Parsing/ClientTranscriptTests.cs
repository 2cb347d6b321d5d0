using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using Xunit;

namespace BackupXe.Tests.Parsing;

/// <summary>
/// The client's transcript of errors that stopped the work before any backup or restore started (realworld4 V28, V29):
/// SSMS's header with its procedure and batch start line, and what an output of errors only closes.
/// </summary>
public static class ClientTranscriptTests
{
    public class An_error_that_stopped_the_work_before_any_backup
    {
        [Fact]
        public void Is_joined_to_its_header_read_past_the_procedure_and_the_batch_start_line()
        {
            // Given: V28's lines as SSMS printed them
            var transcript = new ClientTranscript();
            transcript.Add("Msg 924, Level 14, State 1, Procedure admindb.dbo.DatabaseBackup, Line 2894 [Batch Start Line 0]");
            transcript.Add("Database 'configwizard252stage' is already open and can only have one user at a time.");
            transcript.Add(string.Empty);
            transcript.Add("Completion time: 2026-06-09T10:36:16.9351954-04:00");

            // When: the output ends
            var operation = Assert.Single(transcript.Finish());

            // Then: one failed operation of unknown kind, its one error the 924 with its text and severity, its database from that text
            Assert.Equal((OperationKind.Unknown, "configwizard252stage"), (operation.Kind, operation.Database));
            var closing = Assert.IsType<ClosingError>(Assert.Single(operation.Messages).Message);
            Assert.Equal(new EngineError(924, 14, "Database 'configwizard252stage' is already open and can only have one user at a time."), closing.Error);
        }

        [Theory]
        [InlineData("Msg 208, Level 16, State 1, Line 1", "Invalid object name 'dbo.CommandLog'.")]
        [InlineData("Database 'SingleUser' is already open and can only have one user at a time.", "")]
        public void Is_no_operation_when_the_error_is_not_the_catalogs_or_has_no_header(string first, string second)
        {
            // Given: an error no catalog row names, or 924's text without its Msg header
            var transcript = new ClientTranscript();
            transcript.Add(first);
            transcript.Add(second);

            // When
            var finished = transcript.Finish();

            // Then: nothing closed as a failed operation (at most lines of no kind, which the reader reports as cut)
            Assert.DoesNotContain(finished, o => o.Kind is not null);
        }
    }
}
