namespace BackupXe.Core.Parsing;

/// <summary>
/// "ALTER DATABASE is not permitted while a database is in the Restoring state." (5052): a statement SQL Server refused
/// because of the database's state. Not an operation of its own; a state that only a restore leaves tells what the
/// command the client then gave up on was (realworld4 V27).
/// </summary>
internal sealed record DatabaseStateRefusal(string State) : TraceMessage
{
    /// <summary>True when the database was RESTORING: a restore left it so (WITH NORECOVERY, or one that did not finish).</summary>
    public bool IsRestoring => State.Equals("Restoring", StringComparison.OrdinalIgnoreCase);
}
