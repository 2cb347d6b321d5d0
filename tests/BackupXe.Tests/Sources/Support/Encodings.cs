using System.Text;

namespace BackupXe.Tests.Sources.Support;

internal static class Encodings
{
    public static readonly Encoding Utf8WithoutBom = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false);

    public static readonly Encoding Utf8WithBom = new UTF8Encoding(encoderShouldEmitUTF8Identifier: true);

    /// <summary>What SQL Server writes its ERRORLOG in: UTF-16LE, with a BOM.</summary>
    public static readonly Encoding Utf16LeWithBom = new UnicodeEncoding(bigEndian: false, byteOrderMark: true);
}
