using BackupXe.Sources.Xel;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>Reads only the metadata of a .xel image, through the production walk and decoder.</summary>
internal static class XelCatalogueReader
{
    public static XelCatalogue Read(byte[] file)
    {
        var decoder = new XelDecoder();
        var walk = new XelBufferWalk(new MemoryStream(file, writable: false), (offset, message) => throw new InvalidDataException($"offset {offset}: {message}"));
        foreach (var buffer in walk.Buffers().Where(b => b.Type == 1))
        {
            decoder.ReadMetadata(buffer.Bytes, buffer.Start, buffer.End);
        }

        return decoder.Catalogue;
    }
}
