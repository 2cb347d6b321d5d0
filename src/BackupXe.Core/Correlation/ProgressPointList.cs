using System.Collections;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// A progress report's points held as values: a record is made for a point only when one is read by index or
/// enumerated, and the JSON report reads <see cref="Values"/> without any.
/// </summary>
/// <remarks>
/// A 1M-line ERRORLOG's reports have 670,000 points; a record each was the report's largest share of allocation
/// (docs/performance.md, "ERRORLOG decisions").
/// </remarks>
internal sealed class ProgressPointList(ProgressPoint[] values) : IReadOnlyList<ProgressPointReport>
{
    public ReadOnlySpan<ProgressPoint> Values => values;

    public int Count => values.Length;

    public ProgressPointReport this[int index] => new(values[index].At, values[index].Bytes);

    public IEnumerator<ProgressPointReport> GetEnumerator()
    {
        foreach (var value in values)
        {
            yield return new ProgressPointReport(value.At, value.Bytes);
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
