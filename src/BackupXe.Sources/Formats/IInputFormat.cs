using BackupXe.Core.Events;

namespace BackupXe.Sources.Formats;

/// <summary>
/// One input format BackupXe reads: how to recognise it from the first bytes of an input, and how to read the
/// same stream on. Each format lives in its own folder beside its reader; <see cref="InputFormats.All"/> lists them.
/// </summary>
public interface IInputFormat
{
    /// <summary>The name reported per input (JSON <c>inputs[].format</c>), e.g. "xe-xml".</summary>
    string Name { get; }

    /// <summary>What the format is, in a DBA's words (docs/input-formats.md lists it).</summary>
    string Description { get; }

    /// <summary>
    /// What a damaged input of this format yields: which part is still analysed. Damage always makes the run
    /// partial (exit code 2) unless nothing at all could be read (exit code 1).
    /// </summary>
    string WhenDamaged { get; }

    /// <summary>How sure the format is that <paramref name="prefix"/> is the start of one of its inputs.</summary>
    FormatMatch Recognise(InputPrefix prefix);

    /// <summary>
    /// A source over <paramref name="content"/>, which starts at the input's first byte (the sniffed prefix is
    /// replayed). The source owns the stream and reads it once.
    /// </summary>
    ITraceEventSource Open(string name, Stream content, FormatMatch match);
}
