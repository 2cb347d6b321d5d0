namespace BackupXe.Cli.Rendering;

/// <summary>
/// Bytes a listing writes again and again (a JSON key, a wait type's escaped text), prepared once and held in whole
/// 16-byte blocks, so that <see cref="OutputBuffer.Write(PreparedBytes)"/> copies them with a few vector moves
/// instead of a call to a general copy for a dozen bytes.
/// </summary>
internal sealed class PreparedBytes
{
    public const int BlockSize = 16;

    public PreparedBytes(ReadOnlySpan<byte> bytes)
    {
        Length = bytes.Length;
        Blocks = new byte[(bytes.Length + BlockSize - 1) & ~(BlockSize - 1)];
        bytes.CopyTo(Blocks);
    }

    /// <summary>The bytes, then zeros to the end of the last block.</summary>
    public byte[] Blocks { get; }

    public int Length { get; }

    public ReadOnlySpan<byte> Bytes => Blocks.AsSpan(0, Length);
}
