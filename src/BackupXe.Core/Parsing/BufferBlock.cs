namespace BackupXe.Core.Parsing;

/// <summary>
/// Where a buffer configuration block (trace flag 3213) ends when nothing around it says so: blocks printed one after
/// another on their own (real-world S01-S03) are told apart only by the next one's header or by a parameter repeated.
/// The client transcript groups its lines by this rule and the correlator its events.
/// </summary>
internal static class BufferBlock
{
    /// <summary>A line of the block: its header or one of its parameters.</summary>
    public static bool IsLine(TraceMessage message) => message is BufferParameterLine or BufferConfigurationHeader;

    /// <summary>True when <paramref name="next"/> opens another block after one that already holds the parameters <paramref name="has"/> says.</summary>
    public static bool StartsAnother(TraceMessage next, bool blockIsEmpty, Func<BufferParameter, bool> has)
    {
        ArgumentNullException.ThrowIfNull(has);
        return !blockIsEmpty && (next is BufferConfigurationHeader || (next is BufferParameterLine line && has(line.Parameter)));
    }
}
