using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using Xunit;

namespace BackupXe.Tests.Parsing;

public sealed class MessageParsesTests
{
    private static readonly DateTime At = new(2024, 6, 1, 0, 0, 1, 420, DateTimeKind.Unspecified);

    [Fact]
    public void Takes_the_parse_a_reader_handed_on_with_the_text_instead_of_parsing_again()
    {
        // Given a message its reader parsed, and held with its text
        const string text = "Backup(Db00): BACKUP DATABASE started";
        var read = new ParsedText(text, new TraceMessageParser().Parse(text));
        var progress = new ProgressTraceEvent(At, 51, null, null, read);

        // When
        var parsed = new MessageParses().Parse(progress);

        // Then the very meaning the reader made, not a second one equal to it
        Assert.Same(read.Parsed.Message, parsed.Message);
        Assert.Equal(text, progress.Message);
    }

    [Fact]
    public void Parses_an_event_given_only_its_text()
    {
        // Given
        const string text = "Backup(Db00): 1 percent (20971520/2147483648 bytes) processed";
        var progress = new ProgressTraceEvent(At, 51, null, null, text);

        // When
        var parsed = new MessageParses().Parse(progress);

        // Then
        Assert.Null(progress.Text);
        Assert.Equal(new TraceMessageParser().Parse(text), parsed);
    }

    [Fact]
    public void A_server_progress_line_read_off_the_buffer_writes_its_text_back_when_asked()
    {
        // Given a percent line in the server's wording, which its reader keeps as a prefix and three numbers
        const string text = "Restore(Sales Archive): 100 percent (95303680/95303680 bytes) processed";
        Assert.True(new TraceMessageParser().TryServerProgress(text, At, 51, out var progress));

        // When / Then
        Assert.IsType<ParsedText>(progress.Text);
        Assert.Equal(text, progress.Message);
        Assert.Equal(new TraceMessageParser().Parse(text), new MessageParses().Parse(progress));
    }
}
