using System.Buffers;
using System.Buffers.Text;
using System.Collections.Immutable;
using System.Text;
using System.Text.Json;

namespace BackupXe.Core.Reporting;

/// <summary>
/// The <c>points</c> array of a progress report, written as one block of the bytes <see cref="Utf8JsonWriter"/>
/// would write for it token by token (same indentation, new lines and date format), handed to the writer as a raw
/// value.
/// </summary>
/// <remarks>
/// A 1M-line ERRORLOG of 6,712 backups has 670,000 points, more values than the rest of the report put together, and
/// token by token they were about half the time of writing the report (0.06 of 0.13 s, in process): each date went
/// through the "O" format and was trimmed again, each token through the writer's state checks (issue 10). Tests hold
/// the block to the writer's token-by-token bytes at every depth, indented and not (ProgressPointsJsonTests), and
/// every report to the serializer's (ReportJsonWriterTests).
/// </remarks>
internal static class ProgressPointsJson
{
    // "9999-12-31T23:59:59.9999999Z" and long.MinValue's 20 characters, with room for the names and punctuation.
    private const int MaxPointCharsBesidesLayout = 28 + 20 + 24;

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

        foreach (var point in points)
        {
            if (point is null || point.At.Kind == DateTimeKind.Local)
            {
                return false;
            }
        }

        var layout = Layout.Of(writer);
        var bound = 2 + layout.CloseIndent.Length + layout.NewLine.Length
            + (points.Count * (MaxPointCharsBesidesLayout + (4 * layout.NewLine.Length) + (2 * layout.ElementIndent.Length) + (2 * layout.FieldIndent.Length)));
        var buffer = ArrayPool<byte>.Shared.Rent(bound);
        try
        {
            var length = Format(points, layout, buffer);
            writer.WriteRawValue(buffer.AsSpan(0, length), skipInputValidation: true);
            return true;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static int Format(IReadOnlyList<ProgressPointReport?> points, Layout layout, Span<byte> output)
    {
        var at = 0;
        output[at++] = (byte)'[';
        var previousAt = 0;
        var previousLength = 0;
        var previous = default(DateTime);
        for (var i = 0; i < points.Count; i++)
        {
            var point = points[i]!;
            if (i > 0)
            {
                output[at++] = (byte)',';
            }

            Append(output, ref at, layout.NewLine);
            Append(output, ref at, layout.ElementIndent);
            output[at++] = (byte)'{';
            Append(output, ref at, layout.NewLine);
            Append(output, ref at, layout.FieldIndent);
            Append(output, ref at, layout.AtName);
            output[at++] = (byte)'"';
            var length = IsoTime.Format(point.At, output[at..], previous, output.Slice(previousAt, previousLength));
            (previous, previousAt, previousLength) = (point.At, at, length);
            at += length;
            output[at++] = (byte)'"';
            output[at++] = (byte)',';
            Append(output, ref at, layout.NewLine);
            Append(output, ref at, layout.FieldIndent);
            Append(output, ref at, layout.BytesName);
            Utf8Formatter.TryFormat(point.Bytes, output[at..], out var written);
            at += written;
            Append(output, ref at, layout.NewLine);
            Append(output, ref at, layout.ElementIndent);
            output[at++] = (byte)'}';
        }

        if (points.Count > 0)
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

    /// <summary>The writer's white space around the array's tokens, and the two property names with their separators.</summary>
    private sealed class Layout(byte[] newLine, byte[] elementIndent, byte[] fieldIndent, byte[] closeIndent, byte[] atName, byte[] bytesName)
    {
        // The report's own writers (two-space indent, the platform's new line) at the depths a report reaches are
        // made once; any other writer gets its layout made on the spot.
        private const int DepthsMadeOnce = 8;

        private static readonly JsonWriterOptions ReportIndented = ReportJsonWriter.WriterOptions(indented: true);

        private static readonly ImmutableArray<Layout> IndentedLayouts = [.. Enumerable.Range(0, DepthsMadeOnce).Select(depth => Make(depth, ReportIndented))];

        private static readonly ImmutableArray<Layout> CompactLayouts = [.. Enumerable.Range(0, DepthsMadeOnce).Select(depth => Make(depth, ReportJsonWriter.WriterOptions(indented: false)))];

        public byte[] NewLine => newLine;

        public byte[] ElementIndent => elementIndent;

        public byte[] FieldIndent => fieldIndent;

        public byte[] CloseIndent => closeIndent;

        /// <summary><c>"at": </c> with the opening quote of the value left to the caller.</summary>
        public byte[] AtName => atName;

        public byte[] BytesName => bytesName;

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
                [(byte)'"', .. ReportJsonWriter.Names.At.EncodedUtf8Bytes, .. separator],
                [(byte)'"', .. ReportJsonWriter.Names.Bytes.EncodedUtf8Bytes, .. separator]);
        }
    }
}
