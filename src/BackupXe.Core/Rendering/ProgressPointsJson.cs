using System.Buffers;
using System.Buffers.Text;
using System.Collections.Immutable;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Correlation;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// The <c>points</c> array of a progress report, written as one block of the bytes <see cref="Utf8JsonWriter"/>
/// would write for it token by token (same indentation, new lines and date format), handed to the writer as a raw
/// value.
/// </summary>
/// <remarks>
/// A 1M-line ERRORLOG of 6,712 backups has 670,000 points, more values than the rest of the report put together, and
/// token by token they were about half the time of writing the report: each date went through the "O" format and was
/// trimmed again, each token through the writer's state checks (docs/performance.md, "Choices in the code and the
/// figures behind them"). Tests hold
/// the block to the writer's token-by-token bytes at every depth, indented and not (ProgressPointsJsonTests), and
/// every report to the serializer's (ReportJsonFieldsTests).
/// </remarks>
internal static class ProgressPointsJson
{
    // "9999-12-31T23:59:59.9999999Z" and long.MinValue's 20 characters.
    private const int MaxValueChars = IsoTime.MaxLength + 20;

    /// <summary>
    /// Writes <paramref name="points"/> as the value of the property just named; false, having written nothing,
    /// when the list is null or holds something the block does not cover (a null point, a local time, whose offset
    /// the writer takes from the machine's zone), which the caller then writes token by token.
    /// </summary>
    public static bool TryWrite(Utf8JsonWriter writer, IReadOnlyList<ProgressPointReport?>? points)
    {
        if (points is null)
        {
            return false;
        }

        // The analysis's own reports hold their points as values; any other list is read into values first.
        ReadOnlySpan<ProgressPoint> values;
        if (points is ProgressPointList held)
        {
            values = held.Values;
        }
        else
        {
            var copied = new ProgressPoint[points.Count];
            for (var i = 0; i < copied.Length; i++)
            {
                if (points[i] is not { } point)
                {
                    return false;
                }

                copied[i] = new ProgressPoint(point.At, point.Bytes);
            }

            values = copied;
        }

        foreach (var value in values)
        {
            if (value.At.Kind == DateTimeKind.Local)
            {
                return false;
            }
        }

        var layout = Layout.Of(writer);
        var bound = 2 + layout.CloseIndent.Length + layout.NewLine.Length
            + (values.Length * (MaxValueChars + layout.NextPointOpen.Length + layout.AtToBytes.Length + layout.PointClose.Length));
        var buffer = ArrayPool<byte>.Shared.Rent(bound);
        try
        {
            var length = Format(values, layout, buffer);
            writer.WriteRawValue(buffer.AsSpan(0, length), skipInputValidation: true);
            return true;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static int Format(ReadOnlySpan<ProgressPoint> points, Layout layout, Span<byte> output)
    {
        var at = 0;
        output[at++] = (byte)'[';
        var previousAt = 0;
        var previousLength = 0;
        var previous = default(DateTime);
        for (var i = 0; i < points.Length; i++)
        {
            var point = points[i];
            Append(output, ref at, i == 0 ? layout.FirstPointOpen : layout.NextPointOpen);
            var length = IsoTime.Format(point.At, output[at..], previous, output.Slice(previousAt, previousLength));
            (previous, previousAt, previousLength) = (point.At, at, length);
            at += length;
            Append(output, ref at, layout.AtToBytes);
            Utf8Formatter.TryFormat(point.Bytes, output[at..], out var written);
            at += written;
            Append(output, ref at, layout.PointClose);
        }

        if (points.Length > 0)
        {
            Append(output, ref at, layout.NewLine);
            Append(output, ref at, layout.CloseIndent);
        }

        output[at++] = (byte)']';
        return at;
    }

    private static void Append(Span<byte> output, ref int at, ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(output[at..]);
        at += bytes.Length;
    }

    /// <summary>
    /// The writer's white space and punctuation around the array's tokens, joined into the runs that lie between a
    /// point's two values: three copies a point instead of ten, each of a few bytes, which the copying calls'
    /// set-up outweighed (docs/performance.md).
    /// </summary>
    private sealed class Layout
    {
        // The report's own writers (two-space indent, the platform's new line) at the depths a report reaches are
        // made once; any other writer gets its layout made on the spot.
        private const int DepthsMadeOnce = 8;

        private static readonly JsonWriterOptions ReportIndented = ReportJsonFields.WriterOptions(indented: true);

        private static readonly ImmutableArray<Layout> IndentedLayouts = [.. Enumerable.Range(0, DepthsMadeOnce).Select(depth => Make(depth, ReportIndented))];

        private static readonly ImmutableArray<Layout> CompactLayouts = [.. Enumerable.Range(0, DepthsMadeOnce).Select(depth => Make(depth, ReportJsonFields.WriterOptions(indented: false)))];

        private Layout(byte[] newLine, byte[] elementIndent, byte[] fieldIndent, byte[] closeIndent, byte[] atName, byte[] bytesName)
        {
            NewLine = newLine;
            CloseIndent = closeIndent;
            byte[] pointOpen = [.. newLine, .. elementIndent, (byte)'{', .. newLine, .. fieldIndent, .. atName, (byte)'"'];
            FirstPointOpen = pointOpen;
            NextPointOpen = [(byte)',', .. pointOpen];
            AtToBytes = [(byte)'"', (byte)',', .. newLine, .. fieldIndent, .. bytesName];
            PointClose = [.. newLine, .. elementIndent, (byte)'}'];
        }

        public byte[] NewLine { get; }

        public byte[] CloseIndent { get; }

        /// <summary>From the end of the value before (the array's '[' or a point's '}') to the opening quote of "at"'s value.</summary>
        public byte[] FirstPointOpen { get; }

        /// <summary><see cref="FirstPointOpen"/> after a point, with the comma.</summary>
        public byte[] NextPointOpen { get; }

        /// <summary>From the closing quote of "at"'s value to the start of "bytes"'s number.</summary>
        public byte[] AtToBytes { get; }

        /// <summary>From the end of the number to the point's '}'.</summary>
        public byte[] PointClose { get; }

        public static Layout Of(Utf8JsonWriter writer)
        {
            var options = writer.Options;
            var depth = writer.CurrentDepth;
            if (depth < DepthsMadeOnce)
            {
                if (!options.Indented)
                {
                    return CompactLayouts[depth];
                }

                if (options.IndentCharacter == ReportIndented.IndentCharacter && options.IndentSize == ReportIndented.IndentSize
                    && options.NewLine == ReportIndented.NewLine)
                {
                    return IndentedLayouts[depth];
                }
            }

            return Make(depth, options);
        }

        private static Layout Make(int depth, JsonWriterOptions options)
        {
            byte[] Indent(int level) => options.Indented ? Encoding.ASCII.GetBytes(new string(options.IndentCharacter, level * options.IndentSize)) : [];
            var separator = Encoding.ASCII.GetBytes(options.Indented ? "\": " : "\":");
            return new Layout(
                options.Indented ? Encoding.ASCII.GetBytes(options.NewLine) : [],
                Indent(depth + 1),
                Indent(depth + 2),
                Indent(depth),
                [(byte)'"', .. ReportJsonFields.Names.At.EncodedUtf8Bytes, .. separator],
                [(byte)'"', .. ReportJsonFields.Names.Bytes.EncodedUtf8Bytes, .. separator]);
        }
    }
}
