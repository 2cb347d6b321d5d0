namespace BackupXe.Testing.Tds;

/// <summary>
/// The central store's <c>dbo.instance_leases</c> (sessions/backupxe-history-sqlserver.sql, migration 4) as the lease
/// statements of SqlServerInstanceLeases would change it on a server, with <paramref name="storeClock"/> as the server's
/// SYSUTCDATETIME(). One table may be shared by several doubles (several daemons' connections to one store). Each
/// statement is applied under one lock, as the server applies a batch whose INSERT takes UPDLOCK and HOLDLOCK on the key
/// and whose UPDATE locks the row it changes: take inserts the row when missing, then sets holder and expiry when the
/// lease has expired (expires_at &lt;= now) or the holder is the caller, then answers held (int), holder (nvarchar(256))
/// and expires_at (datetime2(7)); release sets expires_at to now when the caller holds it. It emulates those documented
/// semantics; it is no SQL engine.
/// </summary>
public sealed class ScriptedLeaseTable(TimeProvider storeClock)
{
    /// <summary>What only the lease statements hold.</summary>
    public const string Fragment = "dbo.instance_leases";

    private readonly Dictionary<string, (string Holder, DateTime ExpiresAt)> _rows = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>How many take statements were answered (renewals included).</summary>
    public int Takes { get; private set; }

    /// <summary>The holder of <paramref name="instance"/>'s row and its expiry; null when there is no row.</summary>
    public (string Holder, DateTime ExpiresAt)? Row(string instance)
    {
        lock (_rows)
        {
            return _rows.TryGetValue(instance, out var row) ? row : null;
        }
    }

    /// <summary><paramref name="script"/> answering the lease statements from this table.</summary>
    public TdsScript Serve(TdsScript script) => script.On(Fragment, Answer);

    private TdsResponse Answer(TdsRequest request)
    {
        var instance = (string)request.Parameters["@instance"]!;
        var holder = (string)request.Parameters["@holder"]!;
        var now = storeClock.GetUtcNow().UtcDateTime;
        lock (_rows)
        {
            if (!request.Parameters.TryGetValue("@seconds", out var seconds))
            {
                if (_rows.TryGetValue(instance, out var held) && held.Holder == holder)
                {
                    _rows[instance] = (holder, now);
                }

                return TdsResponse.Empty;
            }

            Takes++;
            var expires = now.AddSeconds(Convert.ToInt32(seconds, System.Globalization.CultureInfo.InvariantCulture));
            if (!_rows.TryGetValue(instance, out var row) || row.Holder == holder || row.ExpiresAt <= now)
            {
                _rows[instance] = row = (holder, expires);
            }

            return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("held"), TdsColumn.NVarChar("holder", 256), TdsColumn.DateTime2("expires_at"))
                .Row(row.Holder == holder ? 1 : 0, row.Holder, row.ExpiresAt));
        }
    }
}
