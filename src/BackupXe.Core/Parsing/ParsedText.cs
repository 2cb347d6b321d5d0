using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// A message's text with what <see cref="TraceMessageParser.Parse"/> made of it: a reader that parsed the message to
/// range-check it where the line is known hands this on as the event's text, and the correlator's
/// <see cref="MessageParses"/> takes the parse instead of parsing the text again.
/// </summary>
public sealed class ParsedText : ITraceText
{
    private readonly string _text;

    // True when _text is only the "Backup(db): " prefix of a progress line in the server's exact wording, whose rest
    // PercentProcessed writes back: two in three lines of a trace flag 3014 log (docs/performance.md, "ERRORLOG decisions").
    private readonly bool _prefixOnly;

    /// <summary>A message read with its text, and what <see cref="TraceMessageParser.Parse"/> made of that text.</summary>
    public ParsedText(string text, ParsedTraceMessage parsed)
    {
        ArgumentNullException.ThrowIfNull(text);
        _text = text;
        Parsed = parsed;
    }

    // Only TryServerProgress, which has checked that the prefix and the numbers write the line back exactly, builds one.
    private ParsedText(string prefix, ParsedTraceMessage parsed, bool prefixOnly)
    {
        _text = prefix;
        Parsed = parsed;
        _prefixOnly = prefixOnly;
    }

    /// <summary>What <see cref="TraceMessageParser.Parse"/> gives for the text.</summary>
    public ParsedTraceMessage Parsed { get; }

    /// <inheritdoc/>
    public string Write() => _prefixOnly ? _text + ((PercentProcessed)Parsed.Message).ServerText() : _text;

    internal static ParsedText ServerProgress(string prefix, ParsedTraceMessage parsed) => new(prefix, parsed, prefixOnly: true);
}
