namespace BackupXe.Testing.Tds;

/// <summary>Columns and rows the double sends for one SELECT.</summary>
public sealed class TdsResultSet(params TdsColumn[] columns)
{
    private readonly List<object?[]> rows = [];

    public IReadOnlyList<TdsColumn> Columns { get; } = columns;

    public IReadOnlyList<object?[]> Rows => rows;

    public TdsResultSet Row(params object?[] values)
    {
        if (values.Length != Columns.Count)
        {
            throw new ArgumentException($"{values.Length} values for {Columns.Count} columns.");
        }

        rows.Add(values);
        return this;
    }
}
