using System.Globalization;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// What <c>backupxe watch</c> shows: one progress line per running operation each time it moves a tenth of
/// the way or changes phase, then the operation's full diagnosis when it ends. Lines, not a redrawn screen,
/// so the same output reads well in a terminal, a log file and a test. <paramref name="alsoCompleted"/> receives
/// each shown operation too (the HTML report file is fed that way).
/// </summary>
public sealed class WatchView(TextWriter output, ConsoleReportRenderer completedRenderer, string? databaseFilter, bool jsonLines, Action<OperationReport>? alsoCompleted = null) : IOperationSink
{
    // Only operations still running: an entry goes when its operation leaves the running list.
    private readonly Dictionary<(int?, string?, DateTime), (int Decile, string? Phase)> _shown = [];
    private readonly HashSet<(int?, string?, DateTime)> _running = [];

    public int Completed { get; private set; }

    /// <summary>Running operations whose last progress line is remembered (to print only changes).</summary>
    public int Remembered => _shown.Count;

    public void OnOperationCompleted(OperationReport report)
    {
        if (!Wanted(report.Database))
        {
            return;
        }

        Completed++;
        alsoCompleted?.Invoke(report);
        if (jsonLines)
        {
            // One object per line so that a consumer can read the stream as it comes (JSON Lines).
            output.WriteLine(ReportJson.Serialize(report));
            output.Flush();
            return;
        }

        completedRenderer.WriteOperation(report, output);
        output.Flush();
    }

    /// <summary>False for JSON Lines, which carry completed operations only.</summary>
    public bool WantsProgress => !jsonLines;

    public void ShowProgress(IReadOnlyList<OperationProgress> running)
    {
        if (jsonLines)
        {
            return;
        }

        _running.Clear();
        foreach (var op in running)
        {
            var key = (op.SessionId, op.Database, op.Since);
            _running.Add(key);
            if (!Wanted(op.Database))
            {
                continue;
            }

            var decile = (op.Percent ?? 0) / 10;
            if (_shown.TryGetValue(key, out var last) && last.Decile == decile && last.Phase == op.Phase)
            {
                continue;
            }

            _shown[key] = (decile, op.Phase);
            output.WriteLine(Line(op));
        }

        if (_shown.Count > _running.Count)
        {
            foreach (var key in _shown.Keys.Where(key => !_running.Contains(key)).ToList())
            {
                _shown.Remove(key);
            }
        }

        output.Flush();
    }

    public static string Line(OperationProgress op)
    {
        var title = Units.Title(op.Kind, op.Scope, op.Database, op.SessionId);
        var percent = op.Percent is { } p ? string.Create(CultureInfo.InvariantCulture, $"{p,3}% [{new string('#', p / 5)}{new string('.', 20 - (p / 5))}]") : "  ?% [....................]";
        var rate = op.MegabytesPerSecond is { } r ? string.Create(CultureInfo.InvariantCulture, $"{r:0.0} MB/s") : "? MB/s";
        var eta = op.Remaining is { } left ? $"ETA {Units.Duration(left.TotalSeconds)}" : "ETA ?";
        return $"{Units.Time(op.Since + op.Elapsed)}  {title}  {op.Phase ?? "-"}  {percent}  {rate}  {eta}  elapsed {Units.Duration(op.Elapsed.TotalSeconds)}  top wait {op.TopWait ?? "-"}";
    }

    private bool Wanted(string? database)
        => databaseFilter is null || string.Equals(database, databaseFilter, StringComparison.OrdinalIgnoreCase);
}
