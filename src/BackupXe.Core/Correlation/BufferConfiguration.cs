using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// The buffer configuration block (trace flag 3213 or its XE twin) gathered line by line. The block's lines
/// carry no database prefix in an ERRORLOG, which is why the correlator attributes them by spid.
/// </summary>
public sealed class BufferConfiguration
{
    private readonly Dictionary<BufferParameter, long> _values = [];

    public bool IsEmpty => _values.Count == 0;

    public void Set(BufferParameter parameter, long value) => _values[parameter] = value;

    /// <summary>Effective options repeat BufferCount/MaxTransferSize; the block, when present, wins.</summary>
    public void SetIfMissing(BufferParameter parameter, long? value)
    {
        if (value is { } v)
        {
            _values.TryAdd(parameter, v);
        }
    }

    public long? Get(BufferParameter parameter) => _values.TryGetValue(parameter, out var v) ? v : null;

    /// <summary>True when <paramref name="message"/> opens another block rather than continuing this one (<see cref="BufferBlock"/>).</summary>
    public bool IsStartOfAnother(TraceMessage message) => BufferBlock.StartsAnother(message, IsEmpty, _values.ContainsKey);

    public BufferConfigReport ToReport()
    {
        var count = Int(BufferParameter.BufferCount);
        var transfer = Get(BufferParameter.MaxTransferSize);
        return new BufferConfigReport
        {
            BufferCount = count,
            MaxTransferSizeBytes = transfer,
            MinMaxTransferSizeBytes = Get(BufferParameter.MinMaxTransferSize),

            // The server's own total wins: it counts every set of buffers (the 2014 fixture prints 21 MB for
            // 7 buffers of 1 MB in 3 sets), which BUFFERCOUNT x MAXTRANSFERSIZE alone does not.
            TotalBufferBytes = Get(BufferParameter.TotalBufferSpace)
                ?? (count is { } c && transfer is { } t ? ServerRanges.SaturatingMultiply(ServerRanges.SaturatingMultiply(c, t), Int(BufferParameter.SetsOfBuffers) ?? 1) : null),
            TotalBufferBytesReported = Get(BufferParameter.TotalBufferSpace) is not null,
            MemoryLimitBytes = Get(BufferParameter.MemoryLimit),
            SetsOfBuffers = Int(BufferParameter.SetsOfBuffers),
            TabularDataDeviceCount = Int(BufferParameter.TabularDataDeviceCount),
            FulltextDataDeviceCount = Int(BufferParameter.FulltextDataDeviceCount),
            FilestreamDeviceCount = Int(BufferParameter.FilestreamDeviceCount),
            MediaBufferCount = Int(BufferParameter.MediaBufferCount),
            MediaBufferSizeBytes = Get(BufferParameter.MediaBufferSize),
            EncodeBufferCount = Int(BufferParameter.EncodeBufferCount),
            BuffersPerReadStream = Int(BufferParameter.BuffersPerReadStream),
            BuffersPerWriteStream = Int(BufferParameter.BuffersPerWriteStream),
            FilesystemIoAlignment = Int(BufferParameter.FilesystemIoAlignment),
        };
    }

    private int? Int(BufferParameter parameter) => Get(parameter) is { } v ? (int)Math.Min(v, int.MaxValue) : null;
}
