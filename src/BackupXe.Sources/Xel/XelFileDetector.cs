using System.Buffers.Binary;

namespace BackupXe.Sources.Xel;

/// <summary>Recognises an Extended Events event_file (.xel) by its header, whatever the file is called.</summary>
internal static class XelFileDetector
{
    // Every .xel stream header opens with this little-endian 32-bit value (bytes 5A 37 AB EF), checked on
    // the genuine fixture tests/BackupXe.Tests/Fixtures/xel/TestXel_0.xel.
    private const uint HeaderMagic = 0xEFAB375A;

    /// <summary>True when <paramref name="firstBytes"/> (the start of a file) is a .xel header.</summary>
    public static bool IsXel(ReadOnlySpan<byte> firstBytes) =>
        firstBytes.Length >= sizeof(uint) && BinaryPrimitives.ReadUInt32LittleEndian(firstBytes) == HeaderMagic;
}
