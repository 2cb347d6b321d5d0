using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Threading.Channels;

namespace BackupXe.Testing.Tds;

/// <summary>Where the double cuts a connection before any query runs.</summary>
public enum TdsLoginDrop
{
    None,

    /// <summary>Close after reading PRELOGIN, before answering it.</summary>
    BeforePreLoginResponse,

    /// <summary>Close after reading LOGIN7, before answering it.</summary>
    BeforeLoginResponse,
}

/// <summary>One error of a scripted login refusal (<see cref="TdsServerDouble.RefuseNextLogins"/>).</summary>
public sealed record TdsError(int Number, byte Class, string Message, byte State = 1)
{
    /// <summary>
    /// A login whose database cannot be opened (recovering, failing over): 4060 class 11, then 18456 class 14 state 38
    /// (MSSQLSERVER_18456: state 38, the database the login asked for could not be opened).
    /// </summary>
    public static TdsError[] CannotOpenDatabase(string database, string user) =>
    [
        new(4060, 11, $"Cannot open database \"{database}\" requested by the login. The login failed."),
        new(18456, 14, $"Login failed for user '{user}'.", 38),
    ];

    /// <summary>40540 class 16: "The service has encountered an error processing your request. Please try again."</summary>
    public static TdsError[] ServiceError() => [new(40540, 16, "The service has encountered an error processing your request. Please try again.")];
}

/// <summary>
/// A TEST DOUBLE of SQL Server at the protocol level: a TDS 7.4 listener on 127.0.0.1 (ephemeral port) that
/// speaks enough of [MS-TDS] for Microsoft.Data.SqlClient 6.1.8 with Encrypt=false (it answers PRELOGIN with
/// "encryption not supported" and has no TLS), and answers each SQL batch or sp_executesql RPC from a
/// <see cref="TdsScript"/>. It proves BackupXe's client path through the real driver: login refusals, server
/// errors with their numbers and classes, cancellation, timeouts, dropped connections. It knows nothing of SQL
/// Server's semantics: everything it returns was scripted by a test. Capabilities: docs/development.md.
/// </summary>
public sealed class TdsServerDouble : IAsyncDisposable
{
    private const string ServerName = "TDSDOUBLE";

    // SqlClient pools connections by connection string, and the string holds the port: a double started on a port an
    // earlier double of this process had would be handed the earlier one's dead pooled connections, each a failure of
    // its own (seen in CI: a reconnect test counted 27 disconnects for its 6 resets). So a port serves one double.
    private static readonly ConcurrentDictionary<int, bool> PortsUsed = new();

    private readonly TcpListener listener = ListenOnAFreshPort();
    private readonly CancellationTokenSource stopping = new();
    private readonly ConcurrentQueue<TdsLogin> logins = new();
    private readonly ConcurrentQueue<TdsRequest> requests = new();
    private readonly ConcurrentBag<Task> connections = [];
    private readonly Task accepting;
    private int stalled;
    private int attentions;

    private TdsServerDouble(TdsScript script)
    {
        Script = script;
        accepting = AcceptAsync();
    }

    public TdsScript Script { get; }

    public int Port => ((IPEndPoint)listener.LocalEndpoint).Port;

    /// <summary>The --server value for this double.</summary>
    public string Server => $"127.0.0.1,{Port}";

    /// <summary>Major version in LOGINACK (what SqlConnection.ServerVersion shows); queries answer for themselves.</summary>
    public int MajorVersion { get; set; } = 15;

    /// <summary>When set, a login with another user name or password is refused with error 18456, class 14.</summary>
    /// <remarks>Held as one reference, so a test may change it while a connection of another thread logs in.</remarks>
    public (string User, string Password)? Credentials
    {
        get => Volatile.Read(ref credentials)?.Value;
        set => Volatile.Write(ref credentials, value is { } pair ? new StrongBox<(string User, string Password)>(pair) : null);
    }

    private StrongBox<(string User, string Password)>? credentials;

    public TdsLoginDrop DropDuringLogin { get; set; }

    private readonly ConcurrentQueue<IReadOnlyList<TdsError>> loginRefusals = new();

    /// <summary>
    /// Refuses the next <paramref name="count"/> logins with <paramref name="errors"/> (ERROR tokens in that order, then
    /// DONE with the error bit), as a server answers a login it cannot complete: a database that is recovering or
    /// failing over sends 4060 and then 18456 (<see cref="TdsError.CannotOpenDatabase"/>); Azure sends 40540 during a
    /// reconfiguration. Later logins are accepted as usual.
    /// </summary>
    public void RefuseNextLogins(int count, params TdsError[] errors)
    {
        for (var i = 0; i < count; i++)
        {
            loginRefusals.Enqueue(errors);
        }
    }

    public IReadOnlyList<TdsLogin> Logins => [.. logins];

    /// <summary>Batches held in a <see cref="TdsResponse.Stall"/> right now, waiting for the client's ATTENTION.</summary>
    public int Stalled => Volatile.Read(ref stalled);

    /// <summary>ATTENTION messages received and acknowledged with DONE(ATTN) so far, on every connection.</summary>
    public int Attentions => Volatile.Read(ref attentions);

    public IReadOnlyList<TdsRequest> Requests => [.. requests];

    public static TdsServerDouble Start(TdsScript script) => new(script);

    private static TcpListener ListenOnAFreshPort()
    {
        // A port refused here stays bound until a fresh one is found, so the system cannot offer it again at once.
        var refused = new List<TcpListener>();
        try
        {
            while (true)
            {
                var candidate = new TcpListener(IPAddress.Loopback, 0);
                candidate.Start();
                if (PortsUsed.TryAdd(((IPEndPoint)candidate.LocalEndpoint).Port, true))
                {
                    return candidate;
                }

                refused.Add(candidate);
            }
        }
        finally
        {
            foreach (var port in refused)
            {
                port.Stop();
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await stopping.CancelAsync();
        listener.Stop();
        try
        {
            await Task.WhenAll([accepting, .. connections]);
        }
        catch (Exception exception) when (exception is OperationCanceledException or SocketException or IOException or ObjectDisposedException)
        {
            // Stopping: the loops end by cancellation or by their sockets closing under them.
        }

        stopping.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!stopping.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await listener.AcceptTcpClientAsync(stopping.Token);
            }
            catch (Exception exception) when (exception is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            connections.Add(Task.Run(() => ServeAsync(client)));
        }
    }

    private async Task ServeAsync(TcpClient client)
    {
        using (client)
        {
            try
            {
                await ConverseAsync(client, stopping.Token);
            }
            catch (Exception exception) when (exception is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
            {
                // The client went away, or the double is stopping.
            }
        }
    }

    private async Task ConverseAsync(TcpClient client, CancellationToken cancellationToken)
    {
        client.NoDelay = true;
        var stream = client.GetStream();
        var writer = new TdsPacketWriter(stream);
        var prelogin = await TdsPacketReader.ReadAsync(stream, cancellationToken);
        if (prelogin?.Type != TdsPacketType.PreLogin)
        {
            return;
        }

        if (DropDuringLogin == TdsLoginDrop.BeforePreLoginResponse)
        {
            Reset(client);
            return;
        }

        await writer.SendAsync(PreLoginResponse(), endOfMessage: true, cancellationToken);
        var loginMessage = await TdsPacketReader.ReadAsync(stream, cancellationToken);
        if (loginMessage?.Type != TdsPacketType.Login7)
        {
            return;
        }

        var login = TdsLogin.Parse(loginMessage.Payload);
        logins.Enqueue(login);
        if (DropDuringLogin == TdsLoginDrop.BeforeLoginResponse)
        {
            Reset(client);
            return;
        }

        if (loginRefusals.TryDequeue(out var scripted))
        {
            var tokens = new TdsTokens();
            foreach (var error in scripted)
            {
                tokens.Message(true, error.Number, error.State, error.Class, error.Message, ServerName, 1);
            }

            await writer.SendAsync(tokens.Done(0xFD, TdsDoneStatus.Error, 0, 0).Take(), endOfMessage: true, cancellationToken);
            return;
        }

        if (Credentials is { } expected && (expected.User != login.UserName || expected.Password != login.Password))
        {
            // What SQL Server sends for a bad login: error 18456, class 14, then DONE with the error bit; then it closes.
            var refusal = new TdsTokens()
                .Message(true, 18456, 1, 14, $"Login failed for user '{login.UserName}'.", ServerName, 1)
                .Done(0xFD, TdsDoneStatus.Error, 0, 0);
            await writer.SendAsync(refusal.Take(), endOfMessage: true, cancellationToken);
            return;
        }

        var packetSize = Math.Clamp(login.PacketSize, 512, 32767);
        var accepted = new TdsTokens()
            .EnvChange(1, string.IsNullOrEmpty(login.Database) ? "master" : login.Database, "master")
            .CollationChange(TdsTokens.DefaultCollation)
            .EnvChange(2, "us_english", string.Empty)
            .LoginAck(MajorVersion, 0, 2000)
            .EnvChange(4, packetSize.ToString(System.Globalization.CultureInfo.InvariantCulture), "4096")
            .Done(0xFD, TdsDoneStatus.Final, 0, 0);
        await writer.SendAsync(accepted.Take(), endOfMessage: true, cancellationToken);
        writer.PacketSize = packetSize;

        // A separate reader, so that an ATTENTION can be seen while a response is still streaming.
        var inbox = Channel.CreateUnbounded<TdsMessage>();
        _ = Task.Run(async () =>
        {
            try
            {
                while (await TdsPacketReader.ReadAsync(stream, cancellationToken) is { } message)
                {
                    await inbox.Writer.WriteAsync(message, cancellationToken);
                }
            }
            catch (Exception exception) when (exception is IOException or SocketException or OperationCanceledException or ObjectDisposedException or InvalidDataException)
            {
                // The connection ended; completing the inbox ends the conversation.
            }
            finally
            {
                inbox.Writer.TryComplete();
            }
        }, cancellationToken);

        await foreach (var message in inbox.Reader.ReadAllAsync(cancellationToken))
        {
            var alive = message.Type switch
            {
                TdsPacketType.SqlBatch => await RespondAsync(TdsRequest.ParseBatch(message.Payload), rpc: false, client, writer, inbox.Reader, cancellationToken),
                TdsPacketType.Rpc => await RespondAsync(TdsRequest.ParseRpc(message.Payload), rpc: true, client, writer, inbox.Reader, cancellationToken),
                TdsPacketType.Attention => await AcknowledgeAttentionAsync(writer, new TdsTokens(), cancellationToken),
                _ => false,
            };
            if (!alive)
            {
                return;
            }
        }
    }

    /// <summary>Sends the scripted response; false when it ended the connection.</summary>
    private async Task<bool> RespondAsync(TdsRequest request, bool rpc, TcpClient client, TdsPacketWriter writer, ChannelReader<TdsMessage> inbox, CancellationToken cancellationToken)
    {
        requests.Enqueue(request);
        var response = Script.Answer(request);
        // Inside a procedure (the RPC) statements end with DONEINPROC and the call with RETURNSTATUS + DONEPROC.
        var statementDone = rpc ? (byte)0xFF : (byte)0xFD;
        var tokens = new TdsTokens { PacketPayload = writer.PacketSize - 8 };
        var failed = false;
        foreach (var step in response.Steps)
        {
            switch (step)
            {
                case TdsStep.ResultSet(var set):
                    tokens.ColumnMetadata(set.Columns);
                    foreach (var row in set.Rows)
                    {
                        tokens.Row(set.Columns, row);
                    }

                    tokens.Done(statementDone, TdsDoneStatus.More | TdsDoneStatus.Count, 0xC1, set.Rows.Count);
                    break;
                case TdsStep.OpenResultSet(var set):
                    tokens.ColumnMetadata(set.Columns);
                    foreach (var row in set.Rows)
                    {
                        tokens.Row(set.Columns, row);
                    }

                    break;
                case TdsStep.Message(var isError, var number, var @class, var state, var text):
                    tokens.Message(isError, number, state, @class, text, ServerName, 1);
                    if (isError)
                    {
                        failed = true;
                        tokens.Done(statementDone, TdsDoneStatus.More | TdsDoneStatus.Error, 0, 0);
                    }

                    break;
                case TdsStep.EndlessRows(var row, var interval):
                    return await StreamUntilAttentionAsync(row, interval, tokens, writer, inbox, cancellationToken);
                case TdsStep.Fed(var columns, var feed):
                    return await FeedAsync(columns, feed, tokens, writer, inbox, client, cancellationToken);
                case TdsStep.Stall:
                    // Only what the batch produced before it stalls goes out: a busy server sends no packet until it has a
                    // token to send. An empty packet here ends the driver's asynchronous wait, and it then reads the rest
                    // synchronously under its state object's lock, which SqlCommand.Cancel waits for (docs/development.md).
                    if (tokens.Length > 0)
                    {
                        await writer.SendAsync(tokens, endOfMessage: false, cancellationToken);
                    }

                    Interlocked.Increment(ref stalled);
                    try
                    {
                        return await WaitForAttentionAsync(inbox, cancellationToken) && await AcknowledgeAttentionAsync(writer, tokens, cancellationToken);
                    }
                    finally
                    {
                        Interlocked.Decrement(ref stalled);
                    }
                case TdsStep.Drop:
                    await writer.SendAsync(tokens, endOfMessage: false, cancellationToken);
                    Reset(client);
                    return false;
            }
        }

        var final = failed ? TdsDoneStatus.Error : TdsDoneStatus.Final;
        if (rpc)
        {
            tokens.ReturnStatus(failed ? 1 : 0).Done(0xFE, final, 0, 0);
        }
        else
        {
            tokens.Done(0xFD, final, 0, 0);
        }

        await writer.SendAsync(tokens, endOfMessage: true, cancellationToken);
        return true;
    }

    private async Task<bool> StreamUntilAttentionAsync(TdsResultSet template, TimeSpan interval, TdsTokens tokens, TdsPacketWriter writer, ChannelReader<TdsMessage> inbox, CancellationToken cancellationToken)
    {
        tokens.ColumnMetadata(template.Columns);
        var index = 0;
        while (true)
        {
            if (template.Rows.Count > 0)
            {
                tokens.Row(template.Columns, template.Rows[index++ % template.Rows.Count]);
            }

            await writer.SendAsync(tokens, endOfMessage: false, cancellationToken);
            using var tick = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            tick.CancelAfter(interval);
            try
            {
                if (!await inbox.WaitToReadAsync(tick.Token))
                {
                    return false;
                }

                if (inbox.TryRead(out var message) && message.Type == TdsPacketType.Attention)
                {
                    return await AcknowledgeAttentionAsync(writer, tokens, cancellationToken);
                }
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                // The interval passed without a message: send the next row.
            }
        }
    }

    /// <summary>Rows as the test writes them, each sent at once; ATTENTION ends it, a Drop resets the connection.</summary>
    private async Task<bool> FeedAsync(TdsResultSet set, ChannelReader<TdsFeedItem> feed, TdsTokens tokens, TdsPacketWriter writer, ChannelReader<TdsMessage> inbox, TcpClient client, CancellationToken cancellationToken)
    {
        tokens.ColumnMetadata(set.Columns);
        await writer.SendAsync(tokens, endOfMessage: false, cancellationToken);
        while (true)
        {
            using var waiting = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            var fromClient = inbox.WaitToReadAsync(waiting.Token).AsTask();
            var fromTest = feed.WaitToReadAsync(waiting.Token).AsTask();
            var first = await Task.WhenAny(fromClient, fromTest);
            await waiting.CancelAsync();
            if (first == fromClient)
            {
                if (!await fromClient)
                {
                    return false;
                }

                if (inbox.TryRead(out var message) && message.Type == TdsPacketType.Attention)
                {
                    return await AcknowledgeAttentionAsync(writer, tokens, cancellationToken);
                }

                continue;
            }

            if (!await fromTest)
            {
                // The feed is over: a live session that dispatches nothing more, until the client cancels.
                return await WaitForAttentionAsync(inbox, cancellationToken) && await AcknowledgeAttentionAsync(writer, tokens, cancellationToken);
            }

            while (feed.TryRead(out var item))
            {
                if (item is TdsFeedItem.Row row)
                {
                    tokens.Row(set.Columns, row.Values);
                    await writer.SendAsync(tokens, endOfMessage: false, cancellationToken);
                    row.SentAt = System.Diagnostics.Stopwatch.GetTimestamp();
                }
                else
                {
                    await writer.SendAsync(tokens, endOfMessage: false, cancellationToken);
                    Reset(client);
                    return false;
                }
            }
        }
    }

    private static async Task<bool> WaitForAttentionAsync(ChannelReader<TdsMessage> inbox, CancellationToken cancellationToken)
    {
        while (await inbox.WaitToReadAsync(cancellationToken))
        {
            if (inbox.TryRead(out var message) && message.Type == TdsPacketType.Attention)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>DONE with the ATTN bit ends whatever was in flight ([MS-TDS] 2.2.1.7).</summary>
    private async Task<bool> AcknowledgeAttentionAsync(TdsPacketWriter writer, TdsTokens tokens, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref attentions);
        tokens.Done(0xFD, TdsDoneStatus.Attention, 0, 0);
        await writer.SendAsync(tokens, endOfMessage: true, cancellationToken);
        return true;
    }

    /// <summary>
    /// The PRELOGIN answer ([MS-TDS] 2.2.6.5): option table (token, big-endian offset and length), 0xFF, data.
    /// ENCRYPTION is 0x02, "not supported": the double has no TLS, so only a client with Encrypt=false goes on.
    /// </summary>
    private byte[] PreLoginResponse()
    {
        (byte Token, byte[] Data)[] options =
        [
            (0x00, [(byte)MajorVersion, 0, 0x07, 0xD0, 0, 0]), // VERSION
            (0x01, [0x02]), // ENCRYPTION: ENCRYPT_NOT_SUP
            (0x02, [0x00]), // INSTOPT
            (0x03, []), // THREADID
            (0x04, [0x00]), // MARS off
        ];
        var table = (options.Length * 5) + 1;
        var result = new List<byte>();
        var offset = table;
        foreach (var (token, data) in options)
        {
            result.Add(token);
            result.Add((byte)(offset >> 8));
            result.Add((byte)offset);
            result.Add((byte)(data.Length >> 8));
            result.Add((byte)data.Length);
            offset += data.Length;
        }

        result.Add(0xFF);
        foreach (var (_, data) in options)
        {
            result.AddRange(data);
        }

        return [.. result];
    }

    /// <summary>An abrupt close: linger 0 makes the socket send RST instead of an orderly FIN.</summary>
    private static void Reset(TcpClient client)
    {
        client.Client.LingerState = new LingerOption(true, 0);
        client.Client.Close();
    }
}
