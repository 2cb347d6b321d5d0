using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// An engine error that closes its operation where no failure line (3013) does, with the kind the output gave it:
/// SQL Server's "The backup or restore was aborted." (3204) after a database the engine said was RESTORING
/// (<paramref name="Evidence"/>, that line: realworld4 V27), or the last error of an output that holds only errors (a
/// driver's record of one server error, realworld4 V23; kind <see cref="OperationKind.Unknown"/>). The text is the line
/// as printed; only its meaning carries the kind and the end.
/// </summary>
public sealed record ClosingError(OperationKind Kind, EngineError Error, string? Evidence = null) : TraceMessage;
