using BackupXe.Testing.Tds;

namespace BackupXe.Benchmarks.Live;

/// <summary>
/// One simulated SQL Server instance: the TDS test double (the tests' <see cref="TdsServerDouble"/>, linked into
/// this project) on its own loopback port, answering BackupXe's session queries with <see cref="ScriptedSqlServer"/>
/// (a running BackupXe session) and the event_file reads with a <see cref="SimulatedEventFile"/>.
/// </summary>
public sealed class SimulatedInstance : IAsyncDisposable
{
    private SimulatedInstance(TdsServerDouble server, SimulatedEventFile file)
    {
        Server = server;
        File = file;
    }

    public TdsServerDouble Server { get; }

    public SimulatedEventFile File { get; }

    public static SimulatedInstance Start(SimulatedEventFile file)
    {
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        sql.Script.On("fn_xe_file_target_read_file(@path, NULL, @initial_file_name", file.Read);
        return new SimulatedInstance(TdsServerDouble.Start(sql.Script), file);
    }

    public ValueTask DisposeAsync() => Server.DisposeAsync();
}
