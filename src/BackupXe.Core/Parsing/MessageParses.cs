using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// The correlator's parser: the parse a reader handed on with the event's text (<see cref="ParsedText"/>), otherwise
/// the text parsed now by the stream's own <see cref="TraceMessageParser"/>.
/// </summary>
internal sealed class MessageParses(TraceMessageParser parser)
{
    public MessageParses()
        : this(new TraceMessageParser())
    {
    }

    public ParsedTraceMessage Parse(ProgressTraceEvent progress)
        => progress.Text is ParsedText read ? read.Parsed : parser.Parse(progress.Message);
}
