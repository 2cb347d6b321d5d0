using System.Data;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>Where an instance's lease stands after one take or renewal.</summary>
/// <param name="Held">This daemon holds it until <paramref name="ExpiresAt"/>.</param>
/// <param name="Holder">Who holds it (this daemon or another); null on a store without the table.</param>
/// <param name="ExpiresAt">Until when, on the store's clock (UTC); null on a store without the table.</param>
/// <param name="Unsupported">The store's script predates migration 4 (no dbo.instance_leases): no leases at all.</param>
public sealed record InstanceLease(bool Held, string? Holder, DateTime? ExpiresAt, bool Unsupported = false);

/// <summary>
/// A lease per instance in the central store's <c>dbo.instance_leases</c> (migration 4 of
/// <c>sessions/backupxe-history-sqlserver.sql</c>; docs/fleet.md, "Several daemons, one store"), so two daemons sharing
/// the store never poll the same instance. Taken and renewed in one batch of the store's own: the row is inserted when
/// missing (UPDLOCK, HOLDLOCK: two daemons inserting at once serialise on the key), then one UPDATE takes it when its
/// lease has expired or renews it when this daemon holds it, both judged on the store's clock (SYSUTCDATETIME()), so the
/// daemons' own clocks never decide. Every connection goes through the store's <see cref="TransientRetry"/>.
/// </summary>
public sealed class SqlServerInstanceLeases
{
    /// <summary>
    /// Take or renew @instance's lease for @holder, @seconds long; answers held (1 this holder, 0 another, -1 no table),
    /// the holder and the expiry.
    /// </summary>
    public const string TakeStatement = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.instance_leases', N'U') IS NULL
        BEGIN
            SELECT CONVERT(int, -1) AS held, CONVERT(nvarchar(256), NULL) AS holder, CONVERT(datetime2(7), NULL) AS expires_at;
            RETURN;
        END;
        INSERT INTO dbo.instance_leases (instance_name, holder, expires_at, renewed_at)
        SELECT @instance, @holder, DATEADD(second, @seconds, SYSUTCDATETIME()), SYSUTCDATETIME()
        WHERE NOT EXISTS (SELECT 1 FROM dbo.instance_leases WITH (UPDLOCK, HOLDLOCK) WHERE instance_name = @instance);
        UPDATE dbo.instance_leases
        SET holder = @holder, expires_at = DATEADD(second, @seconds, SYSUTCDATETIME()), renewed_at = SYSUTCDATETIME()
        WHERE instance_name = @instance AND (holder = @holder OR expires_at <= SYSUTCDATETIME());
        SELECT CONVERT(int, CASE WHEN holder = @holder THEN 1 ELSE 0 END) AS held, holder, expires_at
        FROM dbo.instance_leases WHERE instance_name = @instance;
        """;

    /// <summary>Gives @instance's lease up when @holder holds it: it expires now, so another daemon takes it at its next try.</summary>
    public const string ReleaseStatement = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.instance_leases', N'U') IS NOT NULL
            UPDATE dbo.instance_leases SET expires_at = SYSUTCDATETIME()
            WHERE instance_name = @instance AND holder = @holder;
        """;

    private readonly SqlConnectionFactory _connections;
    private readonly TransientRetry _retry;

    /// <param name="holder">This daemon's name in the table (host, process, a random part): unique among the daemons.</param>
    /// <param name="duration">How long a lease lasts unless renewed; whole seconds, at least one.</param>
    public SqlServerInstanceLeases(SqlConnectionFactory connections, string holder, TimeSpan duration, TransientRetry? retry = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(holder);
        ArgumentOutOfRangeException.ThrowIfLessThan(duration, TimeSpan.FromSeconds(1));
        _connections = connections;
        Holder = holder.Length > 256 ? holder[..256] : holder;
        Duration = TimeSpan.FromSeconds(Math.Floor(duration.TotalSeconds));
        _retry = retry ?? new TransientRetry();
    }

    public string Holder { get; }

    public TimeSpan Duration { get; }

    /// <summary>A name for this daemon process: the host's, the process id and a random part, so a restarted daemon is a new holder.</summary>
    public static string ThisProcess()
    {
        // The random part first: the column's 256 characters cut a long host name, never what makes the name unique.
        var name = $"{Guid.NewGuid():N}@{Environment.MachineName}/{Environment.ProcessId}";
        return name.Length > 256 ? name[..256] : name;
    }

    /// <summary>Takes or renews <paramref name="instance"/>'s lease.</summary>
    /// <exception cref="SqlException">The store could not be reached after the retries.</exception>
    public Task<InstanceLease> TakeAsync(string instance, CancellationToken cancellationToken) => _retry.RunAsync(async token =>
    {
        await using var connection = await _connections.OpenAsync(token);
        await using var command = _connections.Command(connection, TakeStatement);
        command.Parameters.Add("@instance", SqlDbType.NVarChar, 128).Value = instance;
        command.Parameters.Add("@holder", SqlDbType.NVarChar, 256).Value = Holder;
        command.Parameters.Add("@seconds", SqlDbType.Int).Value = (int)Duration.TotalSeconds;
        await using var reader = await command.ExecuteReaderAsync(token);
        if (!await reader.ReadAsync(token))
        {
            return new InstanceLease(false, null, null);
        }

        var held = reader.GetInt32(0);
        return held < 0
            ? new InstanceLease(false, null, null, Unsupported: true)
            : new InstanceLease(held == 1, reader.IsDBNull(1) ? null : reader.GetString(1), reader.IsDBNull(2) ? null : reader.GetDateTime(2));
    }, cancellationToken);

    /// <summary>Gives <paramref name="instance"/>'s lease up if this daemon holds it.</summary>
    public Task ReleaseAsync(string instance, CancellationToken cancellationToken) => _retry.RunAsync(async token =>
    {
        await using var connection = await _connections.OpenAsync(token);
        await using var command = _connections.Command(connection, ReleaseStatement);
        command.Parameters.Add("@instance", SqlDbType.NVarChar, 128).Value = instance;
        command.Parameters.Add("@holder", SqlDbType.NVarChar, 256).Value = Holder;
        await command.ExecuteNonQueryAsync(token);
        return 0;
    }, cancellationToken);
}
