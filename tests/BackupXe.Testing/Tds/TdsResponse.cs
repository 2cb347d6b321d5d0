namespace BackupXe.Testing.Tds;

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

    /// <summary>
    /// COLMETADATA of <paramref name="columns"/>, then each row the test writes to <paramref name="feed"/> as soon as it
    /// is written (what a live stream does as the server dispatches buffers). When the feed completes, nothing more until
    /// ATTENTION (a quiet live session); a <see cref="TdsFeedItem.Drop"/> resets the connection mid-result.
    /// </summary>
    public TdsResponse Feed(TdsResultSet columns, System.Threading.Channels.ChannelReader<TdsFeedItem> feed) => Add(new TdsStep.Fed(columns, feed));

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

    internal sealed record Fed(TdsResultSet Columns, System.Threading.Channels.ChannelReader<TdsFeedItem> Feed) : TdsStep;

    internal sealed record Stall : TdsStep;

    internal sealed record Drop : TdsStep;
}

/// <summary>What a test writes to a <see cref="TdsResponse.Feed"/>: a row to send now, or a dropped connection.</summary>
public abstract record TdsFeedItem
{
    /// <summary>A row; <see cref="SentAt"/> is the double's <see cref="System.Diagnostics.Stopwatch"/> timestamp once it is on the wire.</summary>
    public sealed record Row(object?[] Values) : TdsFeedItem
    {
        private long _sentAt;

        public long SentAt
        {
            get => Interlocked.Read(ref _sentAt);
            internal set => Interlocked.Exchange(ref _sentAt, value);
        }
    }

    /// <summary>Sends what is pending without ending the message, then resets the connection (RST).</summary>
    public sealed record Drop : TdsFeedItem;
}
