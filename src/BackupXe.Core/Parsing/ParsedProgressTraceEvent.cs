using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// A progress event whose message its reader has already parsed, to range-check the numbers where the line is known:
/// the correlator takes <see cref="Parsed"/> rather than parse the text again.
/// </summary>
/// <remarks>
/// A subtype owned by the parser rather than a field on the event, so that events depend on nothing that reads
/// them; sealed, so that the correlator tells it apart with one type comparison.
/// </remarks>
public sealed record ParsedProgressTraceEvent : ProgressTraceEvent
{
    // Set instead of the text when the message is a progress line in the server's exact wording: two in three lines
    // of a trace flag 3014 log are such lines, and their text is written back only if something asks for it
    // (docs/performance.md, "Choices in the code and the figures behind them").
    private readonly string? _messagePrefix;

    /// <summary>An event read with its text, and what <see cref="TraceMessageParser.Parse"/> made of that text.</summary>
    public ParsedProgressTraceEvent(
        DateTime timestamp,
        int? sessionId,
        OperationKind? kind,
        string? databaseName,
        string message,
        int? traceLevel,
        ParsedTraceMessage parsed)
        : base(timestamp, sessionId, kind, databaseName, message, traceLevel)
    {
        Parsed = parsed;
    }

    /// <summary>
    /// A progress line known by its parts: <paramref name="prefix"/> (the "Backup(db): " text before the numbers,
    /// as written) and <paramref name="parsed"/>, whose <see cref="PercentProcessed"/> writes the rest back character
    /// for character (<see cref="PercentProcessed.ServerText"/>). Only a parser that has checked the line has exactly
    /// that form may build one.
    /// </summary>
    internal ParsedProgressTraceEvent(DateTime timestamp, int? sessionId, string prefix, ParsedTraceMessage parsed)
        : base(timestamp, sessionId)
    {
        _messagePrefix = prefix;
        Parsed = parsed;
    }

    /// <summary>What <see cref="TraceMessageParser.Parse"/> gives for <see cref="ProgressTraceEvent.Message"/>.</summary>
    public ParsedTraceMessage Parsed { get; }

    protected override string WriteMessage() => _messagePrefix + ((PercentProcessed)Parsed.Message).ServerText();

    // Parsed follows from the text, which the base compares.
    public bool Equals(ParsedProgressTraceEvent? other) => base.Equals(other);

    public override int GetHashCode() => base.GetHashCode();
}
