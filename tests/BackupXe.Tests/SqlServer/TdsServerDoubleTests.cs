using System.Data;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.Testing.Tds;
using BackupXe.Tests.Support;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// The TDS double against the real driver (Microsoft.Data.SqlClient 6.1.8): these prove the double speaks the
/// protocol the driver expects and that the driver's failures come out as the real driver raises them. They say nothing
/// about SQL Server itself.
/// </summary>
public class TdsServerDoubleTests
{
    [Fact]
    public async Task Driver_reads_every_column_type_the_double_sends()
    {
        // Given
        var at = new DateTime(2024, 5, 1, 1, 30, 0, 123).AddTicks(4567);
        var id = Guid.Parse("6f9619ff-8b86-d011-b42d-00c04fc964ff");
        var xml = "<event name=\"backup_restore_progress_trace\">" + new string('x', 9000) + "</event>";
        var set = new TdsResultSet(
                TdsColumn.Int("i"), TdsColumn.BigInt("b"), TdsColumn.NVarChar("s", 128), TdsColumn.XmlAsNVarChar("x"),
                TdsColumn.VarBinary("v", 16), TdsColumn.DateTime("dt"), TdsColumn.DateTime2("dt2"), TdsColumn.Bit("f"), TdsColumn.UniqueIdentifier("g"))
            .Row(42, 5_000_000_000L, "Sales'DB", xml, new byte[] { 1, 2, 3 }, new DateTime(2024, 5, 1, 1, 30, 0, 120), at, true, id)
            .Row(null, null, null, null, null, null, null, null, null);
        await using var server = TdsServerDouble.Start(new TdsScript().On("SELECT everything", TdsResponse.Of(set)));
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // When
        await using var command = new SqlCommand("SELECT everything;", connection);
        await using var reader = await command.ExecuteReaderAsync();

        // Then
        Assert.True(await reader.ReadAsync());
        Assert.Equal(42, reader.GetInt32(0));
        Assert.Equal(5_000_000_000L, reader.GetInt64(1));
        Assert.Equal("Sales'DB", reader.GetString(2));
        Assert.Equal(xml, reader.GetString(3));
        Assert.Equal(new byte[] { 1, 2, 3 }, (byte[])reader.GetValue(4));
        Assert.Equal(new DateTime(2024, 5, 1, 1, 30, 0, 120), reader.GetDateTime(5));
        Assert.Equal(at, reader.GetDateTime(6));
        Assert.True(reader.GetBoolean(7));
        Assert.Equal(id, reader.GetGuid(8));
        Assert.True(await reader.ReadAsync());
        Assert.All(Enumerable.Range(0, 9), i => Assert.True(reader.IsDBNull(i)));
        Assert.False(await reader.ReadAsync());
    }

    [Fact]
    public async Task Sp_executesql_parameters_arrive_typed()
    {
        // Given
        var script = new TdsScript().On("FROM msdb.dbo.backupset", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("n")).Row(1)));
        await using var server = TdsServerDouble.Start(script);
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);
        var since = new DateTime(2024, 5, 1, 1, 30, 0, 500);
        var id = Guid.NewGuid();

        // When
        await using var command = new SqlCommand("SELECT n = 1 FROM msdb.dbo.backupset WHERE database_name = @db AND backup_set_id > @after AND backup_start_date >= @since AND is_copy_only = @copy AND backup_set_uuid = @id AND media = @media AND note = @long", connection);
        command.Parameters.Add("@db", SqlDbType.NVarChar, 128).Value = "Sales";
        command.Parameters.Add("@after", SqlDbType.BigInt).Value = 9_000_000_000L;
        command.Parameters.Add("@since", SqlDbType.DateTime2).Value = since;
        command.Parameters.Add("@copy", SqlDbType.Bit).Value = true;
        command.Parameters.Add("@id", SqlDbType.UniqueIdentifier).Value = id;
        command.Parameters.Add("@media", SqlDbType.VarBinary, 16).Value = new byte[] { 9, 8 };
        command.Parameters.Add("@long", SqlDbType.NVarChar, -1).Value = new string('n', 5000);
        Assert.Equal(1, await command.ExecuteScalarAsync());

        // Then
        var request = Assert.Single(server.Requests);
        Assert.Equal("sp_executesql", request.Procedure);
        Assert.StartsWith("SELECT n = 1 FROM msdb.dbo.backupset", request.Text);
        Assert.Equal("Sales", request.Parameters["@db"]);
        Assert.Equal(9_000_000_000L, request.Parameters["@after"]);
        Assert.Equal(since, request.Parameters["@since"]);
        Assert.Equal(true, request.Parameters["@copy"]);
        Assert.Equal(id, request.Parameters["@id"]);
        Assert.Equal(new byte[] { 9, 8 }, request.Parameters["@media"]);
        Assert.Equal(5000, ((string)request.Parameters["@long"]!).Length);
    }

    [Fact]
    public async Task Login_carries_the_application_name_and_the_password_and_a_wrong_one_is_refused_with_18456()
    {
        // Given
        await using var server = TdsServerDouble.Start(new TdsScript());
        server.Credentials = (TdsClient.User, TdsClient.Password);

        // When
        var refused = await Assert.ThrowsAsync<SqlException>(() => new SqlConnectionFactory(TdsClient.Settings(server, password: "wrong")).OpenAsync(CancellationToken.None));
        await using var accepted = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // Then
        Assert.Equal(SqlErrorNumbers.LoginFailed, refused.Number);
        Assert.Equal(14, refused.Class);
        Assert.Equal(LiveFailureKind.Fatal, new SqlFailureClassifier().Classify(refused));
        Assert.All(server.Logins, l => Assert.Equal(SqlConnectionSettings.ApplicationName, l.ApplicationName));
        Assert.Equal(TdsClient.Password, server.Logins[^1].Password);
        Assert.Equal("master", server.Logins[^1].Database);
        Assert.Equal(ConnectionState.Open, accepted.State);
    }

    [Fact]
    public async Task Server_errors_keep_number_class_and_state_and_every_error_is_in_Errors()
    {
        // Given
        var script = new TdsScript().On("ALTER EVENT SESSION", new TdsResponse()
            .Error(SqlErrorNumbers.DoesNotExistOrNoPermission, 16, "Cannot alter the event session 'BackupXe', because it does not exist or you do not have permission.", state: 1)
            .Error(SqlErrorNumbers.ActionPermissionDenied, 16, "The user does not have permission to perform this action.", state: 4));
        await using var server = TdsServerDouble.Start(script);
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // When
        await using var command = new SqlCommand("ALTER EVENT SESSION [BackupXe] ON SERVER STATE = START;", connection);
        var failure = await Assert.ThrowsAsync<SqlException>(() => command.ExecuteNonQueryAsync());

        // Then
        Assert.Equal([15151, 297], failure.Errors.Cast<SqlError>().Select(e => e.Number));
        Assert.Equal([1, 4], failure.Errors.Cast<SqlError>().Select(e => (int)e.State));
        Assert.Equal(16, failure.Class);
        // A permission error among them wins: re-creating the session cannot fix a missing grant.
        Assert.Equal(LiveFailureKind.Fatal, new SqlFailureClassifier().Classify(failure));
        Assert.Equal(ConnectionState.Open, connection.State);
    }

    [Fact]
    public async Task Cancelling_an_endless_stream_sends_attention_and_the_connection_stays_usable()
    {
        // Given
        var row = new TdsResultSet(TdsColumn.XmlAsNVarChar("event_data"), TdsColumn.BigInt("file_offset")).Row("<event name=\"wait_info\"/>", 1024L);
        var script = new TdsScript()
            .On("fn_xe_file_target_read_file", new TdsResponse().Endless(row, TimeSpan.FromMilliseconds(20)))
            .On("SELECT 1", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("one")).Row(1)));
        await using var server = TdsServerDouble.Start(script);
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // When: five rows, then Cancel (ATTENTION). Disposing the reader alone would drain the endless result
        // until the command timeout, as it would against a real server.
        var read = 0;
        Exception? failure = null;
        var watch = System.Diagnostics.Stopwatch.StartNew();
        try
        {
            await using var command = new SqlCommand("SELECT event_data FROM sys.fn_xe_file_target_read_file(N'BackupXe*.xel', NULL, NULL, NULL);", connection);
            await using var reader = await command.ExecuteReaderAsync();
            while (read < 5 && await reader.ReadAsync())
            {
                Assert.Equal("<event name=\"wait_info\"/>", reader.GetString(0));
                read++;
            }

            command.Cancel();
        }
        catch (SqlException exception)
        {
            failure = exception;
        }

        // Then
        Assert.Equal(5, read);
        Assert.True(failure is null or SqlException { Number: 0, Class: 11 }, failure?.ToString());
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(4), $"cancel took {watch.Elapsed}");
        await using var next = new SqlCommand("SELECT 1;", connection);
        Assert.Equal(1, await next.ExecuteScalarAsync());
    }

    [Fact]
    public async Task A_stalled_query_times_out_with_minus_2_and_the_connection_stays_usable()
    {
        // Given
        var script = new TdsScript()
            .On("WAITFOR", new TdsResponse().Stall())
            .On("SELECT 1", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("one")).Row(1)));
        await using var server = TdsServerDouble.Start(script);
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server, commandTimeoutSeconds: 1)).OpenAsync(CancellationToken.None);

        // When
        await using var command = new SqlCommand("WAITFOR DELAY '01:00:00';", connection) { CommandTimeout = 1 };
        var failure = await Assert.ThrowsAsync<SqlException>(() => command.ExecuteNonQueryAsync());

        // Then
        Assert.Equal(SqlErrorNumbers.Timeout, failure.Number);
        Assert.Equal(LiveFailureKind.Transient, new SqlFailureClassifier().Classify(failure));
        await using var next = new SqlCommand("SELECT 1;", connection);
        Assert.Equal(1, await next.ExecuteScalarAsync());
    }

    /// <summary>How a test stops a stalled command: the token it passed, SqlCommand.Cancel, or the token on a fake clock.</summary>
    public enum StopBy
    {
        Token,
        CancelFromAnotherThread,
        TokenOnFakeClock,
    }

    /// <summary>
    /// A BACKUP that has sent nothing yet, stopped while ExecuteNonQueryAsync waits on it: the driver sends ATTENTION, the
    /// double acknowledges it with DONE(ATTN), and the command ends at once as "Operation cancelled by user" with the
    /// connection still usable. Once any packet of the response has arrived (the double used to send an empty one before
    /// stalling; a STATS message does the same) the driver reads the rest synchronously under its state object's lock,
    /// and a Cancel waits for that lock until the command timeout (docs/development.md, "Stopping a running command").
    /// </summary>
    [Theory]
    [InlineData(StopBy.Token)]
    [InlineData(StopBy.CancelFromAnotherThread)]
    [InlineData(StopBy.TokenOnFakeClock)]
    public async Task A_stalled_command_stopped_while_it_waits_sends_attention_ends_at_once_and_the_connection_stays_usable(StopBy stopBy)
    {
        // Given: a command timeout far beyond the test, so only the stop can end the command
        var script = new TdsScript()
            .On("BACKUP DATABASE", new TdsResponse().Stall())
            .On("SELECT 1", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("one")).Row(1)));
        await using var server = TdsServerDouble.Start(script);
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server, commandTimeoutSeconds: 600)).OpenAsync(CancellationToken.None);
        await using var command = new SqlCommand("BACKUP DATABASE [Sales] TO DISK = N'NUL' WITH COPY_ONLY, STATS = 5;", connection) { CommandTimeout = 600 };
        var clock = new FakeClock();
        using var stop = stopBy == StopBy.TokenOnFakeClock ? new CancellationTokenSource(TimeSpan.FromSeconds(5), clock) : new CancellationTokenSource();
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var running = command.ExecuteNonQueryAsync(stopBy == StopBy.CancelFromAnotherThread ? CancellationToken.None : stop.Token);
        // Bounded, and ended by a failed command too: an unbounded wait here would hold the whole suite at no CPU.
        while (server.Stalled == 0 && !running.IsCompleted)
        {
            Assert.True(watch.Elapsed < TimeSpan.FromSeconds(60), "the BACKUP did not reach the double's stall within 60 s");
            await Task.Delay(1);
        }

        // When
        var stopping = stopBy switch
        {
            StopBy.Token => stop.CancelAsync(),
            StopBy.CancelFromAnotherThread => Task.Run(command.Cancel),
            _ => Task.Run(() => clock.Advance(TimeSpan.FromSeconds(5))), // the timer fires the cancel on the thread that moves the clock
        };
        var failure = await Record.ExceptionAsync(() => running.WaitAsync(TimeSpan.FromSeconds(60)));
        await stopping.WaitAsync(TimeSpan.FromSeconds(60));

        // Then
        Assert.True(failure is SqlException { Number: 0 } or OperationCanceledException, failure?.ToString());
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(20), $"the stop took {watch.Elapsed}");
        Assert.Equal(1, server.Attentions);
        // The double lets go of the stalled batch once its acknowledgement is written, which the driver may read first.
        for (var waited = System.Diagnostics.Stopwatch.StartNew(); server.Stalled != 0 && waited.Elapsed < TimeSpan.FromSeconds(10);)
        {
            await Task.Delay(1);
        }

        Assert.Equal(0, server.Stalled);
        await using var next = new SqlCommand("SELECT 1;", connection);
        Assert.Equal(1, await next.ExecuteScalarAsync());
    }

    [Fact]
    public async Task A_connection_dropped_mid_result_fails_with_number_0_class_20_which_is_transient()
    {
        // Given
        var rows = new TdsResultSet(TdsColumn.Int("n")).Row(1).Row(2);
        await using var server = TdsServerDouble.Start(new TdsScript().On("SELECT n", new TdsResponse().PartialRows(rows).Disconnect()));
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // When
        var seen = 0;
        var failure = await Record.ExceptionAsync(async () =>
        {
            await using var command = new SqlCommand("SELECT n FROM t;", connection);
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                seen++;
            }
        });

        // Then the driver reports the reset as number 0, class 20; on a loaded machine it has now and then (2 runs in
        // 10 beside the tune tests) seen the close first and said "The connection is closed." instead. Either is transient.
        switch (failure)
        {
            case SqlException sql:
                Assert.Equal(0, sql.Number);
                Assert.Equal(20, sql.Class);
                break;
            case InvalidOperationException closed:
                Assert.Contains("connection is closed", closed.Message, StringComparison.OrdinalIgnoreCase);
                break;
            default:
                Assert.Fail($"expected the driver's reset or closed-connection failure, got {failure?.GetType().Name ?? "none"}: {failure?.Message}");
                break;
        }

        Assert.Equal(LiveFailureKind.Transient, new SqlFailureClassifier().Classify(failure!));
    }

    [Theory]
    [InlineData(TdsLoginDrop.BeforePreLoginResponse)]
    [InlineData(TdsLoginDrop.BeforeLoginResponse)]
    public async Task A_peer_that_closes_during_login_fails_at_once_as_transient(TdsLoginDrop drop)
    {
        // Given
        await using var server = TdsServerDouble.Start(new TdsScript());
        server.DropDuringLogin = drop;
        var watch = System.Diagnostics.Stopwatch.StartNew();

        // When
        var failure = await Assert.ThrowsAsync<SqlException>(() => new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None));

        // Then
        Assert.Equal(LiveFailureKind.Transient, new SqlFailureClassifier().Classify(failure));
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), $"took {watch.Elapsed}");
    }

    [Fact]
    public async Task A_request_without_a_scripted_answer_fails_naming_the_request()
    {
        // Given
        await using var server = TdsServerDouble.Start(new TdsScript());
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // When
        await using var command = new SqlCommand("SELECT unexpected;", connection);
        var failure = await Assert.ThrowsAsync<SqlException>(() => command.ExecuteScalarAsync());

        // Then
        Assert.Equal(50000, failure.Number);
        Assert.Contains("SELECT unexpected;", failure.Message);
    }
}
