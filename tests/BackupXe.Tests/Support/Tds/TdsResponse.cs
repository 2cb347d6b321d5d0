namespace BackupXe.Tests.Support.Tds;

/// <summary>
/// What the double answers to one request, as steps in order: result sets, server messages, a stalled or endless
/// stream, an abrupt disconnect. Built with the fluent methods; an empty response is a bare DONE.
/// </summary>
public sealed class TdsResponse
{
    private readonly List<TdsStep> steps = [];

    internal IReadOnlyList<TdsStep> Steps => steps;

    public static TdsResponse Empty => new();

    public static TdsResponse Of(params TdsResultSet[] sets)
    {
        var response = new TdsResponse();
        foreach (var set in sets)
        {
            response.Rows(set);
        }

        return response;
    }

    /// <summary>A whole result set (COLMETADATA, ROWs, DONE with the row count).</summary>
    public TdsResponse Rows(TdsResultSet set) => Add(new TdsStep.ResultSet(set));

    /// <summary>An ERROR token: SqlClient raises a SqlException carrying these number, class and state.</summary>
    public TdsResponse Error(int number, byte @class, string message, byte state = 1) => Add(new TdsStep.Message(true, number, @class, state, message));

    /// <summary>An INFO token, what PRINT sends (class 0): SqlConnection.InfoMessage receives it.</summary>
    public TdsResponse Info(string message, int number = 0) => Add(new TdsStep.Message(false, number, 0, 1, message));

    /// <summary>
    /// COLMETADATA, then <paramref name="row"/> again every <paramref name="interval"/> until the client sends
    /// ATTENTION (cancel or command timeout), which is acknowledged with DONE(ATTN). For tailing readers.
    /// </summary>
    public TdsResponse Endless(TdsResultSet row, TimeSpan interval) => Add(new TdsStep.EndlessRows(row, interval));

    /// <summary>Sends nothing until ATTENTION arrives, then acknowledges it: a server that is busy or blocked.</summary>
    public TdsResponse Stall() => Add(new TdsStep.Stall());

    /// <summary>
    /// Sends what came before without the end-of-message bit, then resets the connection (RST): a server or
    /// network that died mid-result. Put it after <see cref="PartialRows"/> to die inside a result set.
    /// </summary>
    public TdsResponse Disconnect() => Add(new TdsStep.Drop());

    /// <summary>COLMETADATA and the rows of <paramref name="set"/> with no DONE: a result cut short, for <see cref="Disconnect"/>.</summary>
    public TdsResponse PartialRows(TdsResultSet set) => Add(new TdsStep.OpenResultSet(set));

    private TdsResponse Add(TdsStep step)
    {
        steps.Add(step);
        return this;
    }
}

internal abstract record TdsStep
{
    internal sealed record ResultSet(TdsResultSet Set) : TdsStep;

    internal sealed record OpenResultSet(TdsResultSet Set) : TdsStep;

    internal sealed record Message(bool IsError, int Number, byte Class, byte State, string Text) : TdsStep;

    internal sealed record EndlessRows(TdsResultSet Row, TimeSpan Interval) : TdsStep;

    internal sealed record Stall : TdsStep;

    internal sealed record Drop : TdsStep;
}
