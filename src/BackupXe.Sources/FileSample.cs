using System.Security.Cryptography;

namespace BackupXe.Sources;

/// <summary>
/// The hash of a few spread blocks of a file: its first and last 64 KB and 16 blocks of 4 KB evenly between. Two
/// files of one length with different samples differ; equal samples prove nothing, and the caller then compares
/// the whole files. A file of 1 MB or less is hashed whole.
/// </summary>
internal static class FileSample
{
    private const int EndBlock = 64 * 1024;
    private const int InnerBlock = 4 * 1024;
    private const int InnerBlocks = 16;
    private const long WholeUpTo = 1024 * 1024;

    /// <summary>Whether the sample of a file of <paramref name="length"/> bytes is the hash of the whole file.</summary>
    public static bool IsWhole(long length) => length <= WholeUpTo;

    public static byte[] Of(FileStream file)
    {
        var length = file.Length;
        if (IsWhole(length))
        {
            return SHA256.HashData(file);
        }

        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var buffer = new byte[EndBlock];
        Add(hash, file, 0, EndBlock, buffer);
        var between = length - (2 * EndBlock) - InnerBlock;
        for (var i = 1; i <= InnerBlocks; i++)
        {
            Add(hash, file, EndBlock + (between * i / (InnerBlocks + 1)), InnerBlock, buffer);
        }

        Add(hash, file, length - EndBlock, EndBlock, buffer);
        return hash.GetHashAndReset();
    }

    private static void Add(IncrementalHash hash, FileStream file, long offset, int count, byte[] buffer)
    {
        var block = buffer.AsSpan(0, count);
        var read = 0;
        while (read < count)
        {
            var got = RandomAccess.Read(file.SafeFileHandle, block[read..], offset + read);
            if (got == 0)
            {
                // Shorter than when measured (written to meanwhile): what is there is the sample.
                break;
            }

            read += got;
        }

        hash.AppendData(block[..read]);
    }
}
