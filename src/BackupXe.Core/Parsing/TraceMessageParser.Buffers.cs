using System.Globalization;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

// The buffer configuration block (trace flag 3213), "Effective options", the size estimate and the reader count.
public sealed partial class TraceMessageParser
{
    // "Memory limit: 2300 MB", "Memory limit: 3325MB", "BufferCount: 7".
    private static TraceMessage? ParseBufferValue(ReadOnlySpan<char> rest, BufferParameter parameter)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':') || cursor.Size() is not { } value || !IsEnd(cursor.Rest))
        {
            return null;
        }

        return value > ServerRanges.MaxBytes ? TooLarge("buffer parameter", value)
            : IsCount(parameter) && value > ServerRanges.MaxBufferCount ? TooMany(parameter.ToString(), value)
            : new BufferParameterLine(parameter, value);
    }

    private static bool IsCount(BufferParameter parameter) => parameter is BufferParameter.BufferCount or BufferParameter.SetsOfBuffers
        or BufferParameter.MediaBufferCount or BufferParameter.EncodeBufferCount or BufferParameter.BuffersPerReadStream or BufferParameter.BuffersPerWriteStream;

    private static ImplausibleValue TooMany(string what, long value) =>
        new($"{what} of {value} is beyond what SQL Server can write (it uses at most {ServerRanges.MaxBufferCount} buffers)");

    // "Effective options: Checksum=1, Compression=1, Encryption=0, BufferCount=7, MaxTransferSize=1024 KB":
    // keys in any order, any of them missing, unknown keys ignored.
    private static TraceMessage? ParseEffectiveOptions(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char(':'))
        {
            return null;
        }

        bool? checksum = null, compression = null, encryption = null;
        int? bufferCount = null;
        long? maxTransferSize = null;
        var list = cursor.Rest;
        while (!list.IsEmpty)
        {
            var comma = list.IndexOf(',');
            var item = comma < 0 ? list : list[..comma];
            list = comma < 0 ? [] : list[(comma + 1)..];

            var equals = item.IndexOf('=');
            if (equals < 0)
            {
                continue;
            }

            var key = item[..equals].Trim();
            var value = item[(equals + 1)..].Trim();
            if (SameLabel(key, "Checksum"))
            {
                checksum = Flag(value);
            }
            else if (SameLabel(key, "Compression"))
            {
                compression = Flag(value);
            }
            else if (SameLabel(key, "Encryption"))
            {
                encryption = Flag(value);
            }
            else if (SameLabel(key, "BufferCount"))
            {
                if (!long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var n) || n > ServerRanges.MaxBufferCount)
                {
                    return TooMany("BufferCount", long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var big) ? big : long.MaxValue);
                }

                bufferCount = (int)n;
            }
            else if (SameLabel(key, "MaxTransferSize"))
            {
                var size = new Cursor(value);
                maxTransferSize = size.Size() is { } bytes && IsEnd(size.Rest) ? bytes : null;
            }
        }

        if (maxTransferSize > ServerRanges.MaxBytes)
        {
            return TooLarge("MaxTransferSize", maxTransferSize.Value);
        }

        return new EffectiveOptions(checksum, compression, encryption, bufferCount, maxTransferSize);
    }

    private static bool? Flag(ReadOnlySpan<char> value) =>
        value.Equals("1", StringComparison.Ordinal) || value.Equals("on", StringComparison.OrdinalIgnoreCase)
            || value.Equals("true", StringComparison.OrdinalIgnoreCase) ? true
        : value.Equals("0", StringComparison.Ordinal) || value.Equals("off", StringComparison.OrdinalIgnoreCase)
            || value.Equals("false", StringComparison.OrdinalIgnoreCase) ? false
        : null;

    // "Estimated total size = 95303680 bytes (data size = 95289344 bytes, log size = 14336 bytes)".
    private static TraceMessage? ParseEstimatedSize(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        if (!cursor.Char('=') || cursor.Size() is not { } total)
        {
            return null;
        }

        var data = SizeAfter(cursor.Rest, "data size");
        var log = SizeAfter(cursor.Rest, "log size");
        if (Math.Max(total, Math.Max(data ?? 0, log ?? 0)) is var largest && largest > ServerRanges.MaxBytes)
        {
            return TooLarge("estimated size", largest);
        }

        return new EstimatedSize(total, data, log);
    }

    private static long? SizeAfter(ReadOnlySpan<char> text, string label)
    {
        var at = IndexOfIgnoreCase(text, label);
        if (at < 0)
        {
            return null;
        }

        var cursor = new Cursor(text[(at + label.Length)..]);
        return cursor.Char('=') ? cursor.Size() : null;
    }

    private static DataFileReaders? ParseReaders(ReadOnlySpan<char> rest)
    {
        var cursor = new Cursor(rest);
        return cursor.Char('=') && cursor.Long() is { } count && count <= int.MaxValue && IsEnd(cursor.Rest)
            ? new DataFileReaders((int)count)
            : null;
    }

    private static ImplausibleValue TooLarge(string what, long value) =>
        new($"{what} of {value} bytes is beyond what SQL Server can write");
}
