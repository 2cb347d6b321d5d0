using System.Globalization;
using BackupXe.Tests.SqlServer.Msdb;
using BackupXe.Testing.Tds;

namespace BackupXe.Tests.Support;

/// <summary>
/// The daemon's import as a server answers it in the tests of the import and the fleet: msdb's backup sets of one
/// database, the server's name, its availability group database and an empty restore chain and restore history.
/// </summary>
internal static class ScriptedMsdb
{
    private const long GiB = 1L << 30;

    /// <summary>
    /// A server named <paramref name="name"/> whose Sales has <paramref name="backups"/> (type, hours before
    /// <paramref name="now"/>, first and last LSN), each 1 GiB in 30 s; in the availability group database
    /// <paramref name="group"/> when given.
    /// </summary>
    public static TdsScript Replica(DateTime now, string name, string? group, params (string Type, double HoursAgo, long First, long Last)[] backups)
    {
        var rows = ServerHistoryReaderTests.MsdbRowsWithLsns();
        var id = 0;
        foreach (var (type, hoursAgo, first, last) in backups)
        {
            var start = DateTime.SpecifyKind(now.AddHours(-hoursAgo), DateTimeKind.Unspecified);
            rows.Row(++id, "Sales", ServerHistoryReaderTests.SalesGuid, type, false, false, true, start, start.AddSeconds(30), GiB, GiB, null, null, 0, $@"X:\b\Sales_{id}.bak", 2, 0, null, 16, 0, 4135,
                first.ToString(CultureInfo.InvariantCulture), last.ToString(CultureInfo.InvariantCulture), "1500", "1500", "FULL", null);
        }

        // In this order: a later rule wins where two fragments meet in one request.
        return WithEmptyChain(ServerHistoryReaderTests.Server(ServerHistoryReaderTests.Columns2022(), rows, commandLog: null)
            .On("SERVERPROPERTY('ServerName')", TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("server_name", 128)).Row(name)))
            .On(ScriptedSqlServer.GroupDatabasesFragment, group is null ? ScriptedSqlServer.GroupDatabasesResponse() : ScriptedSqlServer.GroupDatabasesResponse(("Sales", group))));
    }

    /// <summary>The script with msdb's restore chain and restore history empty.</summary>
    public static TdsScript WithEmptyChain(TdsScript script) => WithChain(script);

    /// <summary>The script with <paramref name="sets"/> as msdb's restore chain and no restore in its history.</summary>
    public static TdsScript WithChain(TdsScript script, params ScriptedBackupSet[] sets) => script
        .On(ScriptedSqlServer.MsdbChainFragment, _ => ScriptedSqlServer.ChainResponse(sets))
        .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([]));
}
