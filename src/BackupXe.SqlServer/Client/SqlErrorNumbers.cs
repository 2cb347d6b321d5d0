namespace BackupXe.SqlServer.Client;

/// <summary>
/// SQL Server error numbers BackupXe reacts to. Texts and severities are from Microsoft's "Database engine events
/// and errors" reference (learn.microsoft.com/sql/relational-databases/errors-events/database-engine-events-and-errors,
/// pages 0-999, 4000-4999, 15000-15999, 18000-18999 and 23000-25999); the driver-side numbers (0, -2) are what
/// Microsoft.Data.SqlClient was measured to raise against the TDS double on net10.0/Linux.
/// </summary>
internal static class SqlErrorNumbers
{
    /// <summary>Driver: no server error; Class 20 = connection broken or refused, Class 11 = command cancelled.</summary>
    public const int DriverError = 0;

    /// <summary>Driver: connect or command timeout ("Execution Timeout Expired"), Class 11.</summary>
    public const int Timeout = -2;

    /// <summary>229, severity 14: "The %ls permission was denied on the object ...".</summary>
    public const int ObjectPermissionDenied = 229;

    /// <summary>262, severity 14: "%ls permission denied in database '%.*ls'."</summary>
    public const int DatabasePermissionDenied = 262;

    /// <summary>297, severity 16: "The user does not have permission to perform this action."</summary>
    public const int ActionPermissionDenied = 297;

    /// <summary>300, severity 14: "%ls permission was denied on object '%.*ls', database '%.*ls'." (a DMV without VIEW SERVER STATE).</summary>
    public const int ServerPermissionDenied = 300;

    /// <summary>916, severity 14: the server principal is not able to access the database under the current security context.</summary>
    public const int CannotAccessDatabase = 916;

    /// <summary>942, severity 14: "Database '%.*ls' cannot be opened because it is offline."</summary>
    public const int DatabaseOffline = 942;

    /// <summary>1205, severity 13: chosen as deadlock victim; rerun the transaction.</summary>
    public const int DeadlockVictim = 1205;

    /// <summary>4060, severity 11: "Cannot open database "%.*ls" requested by the login. The login failed."</summary>
    public const int CannotOpenDatabase = 4060;

    /// <summary>4064, severity 11: "Cannot open user default database. Login failed."</summary>
    public const int CannotOpenDefaultDatabase = 4064;

    /// <summary>15151, severity 16: "Cannot %S_MSG the %S_MSG '%.*ls', because it does not exist or you do not have permission."</summary>
    public const int DoesNotExistOrNoPermission = 15151;

    /// <summary>15247, severity 16: "User does not have permission to perform this action."</summary>
    public const int NoPermissionForAction = 15247;

    /// <summary>18452, severity 14: login from an untrusted domain (integrated security).</summary>
    public const int UntrustedDomainLogin = 18452;

    /// <summary>18456, severity 14: "Login failed for user '%.*ls'.%.*ls%.*ls"</summary>
    public const int LoginFailed = 18456;

    /// <summary>18488, severity 14: the password of the account must be changed.</summary>
    public const int PasswordMustChange = 18488;

    /// <summary>25602, severity 17: a target "encountered a configuration error during initialization" (e.g. an unwritable .xel path).</summary>
    public const int TargetConfigurationError = 25602;

    /// <summary>25631, severity 16: "The %S_MSG, "%.*ls", already exists. Choose a unique name for the event session."</summary>
    public const int EventSessionAlreadyExists = 25631;

    /// <summary>25704, severity 16: "The event session has already been stopped."</summary>
    public const int EventSessionAlreadyStopped = 25704;

    /// <summary>25705, severity 16: "The event session has already been started."</summary>
    public const int EventSessionAlreadyStarted = 25705;

    /// <summary>25706, severity 16: "The %S_MSG, "%.*ls", could not be found."</summary>
    public const int EventObjectNotFound = 25706;

    /// <summary>25726, severity 17: the event data stream was disconnected because there were too many outstanding events.</summary>
    public const int EventStreamTooManyOutstanding = 25726;

    /// <summary>25727, severity 16: the session "has either been stopped or dropped and can no longer be accessed."</summary>
    public const int EventSessionStoppedOrDropped = 25727;

    /// <summary>25728, severity 16: the session "could not be found. Make sure the session exists and is started."</summary>
    public const int EventSessionNotFound = 25728;

    /// <summary>25729, severity 17: "The event data stream was disconnected due to an internal error."</summary>
    public const int EventStreamInternalError = 25729;

    /// <summary>25717, severity 16: the operating system returned an error while reading an event file (fn_xe_file_target_read_file).</summary>
    public const int EventFileOsReadError = 25717;

    /// <summary>25718, severity 16: the log file name is invalid; verify that the file exists and the service account can read it.</summary>
    public const int EventFileNameInvalid = 25718;

    /// <summary>25719, severity 16: the initial file name and initial offset must be given together.</summary>
    public const int EventFileInitialArgumentsUnpaired = 25719;

    /// <summary>25722, severity 16: the offset is invalid for the log file.</summary>
    public const int EventFileOffsetInvalid = 25722;

    /// <summary>25736, severity 16: a damaged buffer was found in an event file; no further events are read from that file.</summary>
    public const int EventFileDamagedBuffer = 25736;

    /// <summary>
    /// The errors Microsoft.Data.SqlClient's own retry logic treats as transient (its configurable retry logic
    /// page) that no other rule here covers: 4060 cannot open the database (it may be recovering or failing over),
    /// 1204 no lock could be had, 1222 lock request timeout, 40143 and 40540 service errors while processing.
    /// </summary>
    internal static readonly IReadOnlySet<int> DriverDocumentedTransients = new HashSet<int> { CannotOpenDatabase, 1204, 1222, 40143, 40540 };

    /// <summary>Azure SQL / failover transients Microsoft lists for retry logic: 40197, 40501, 40613, 49918-49920, 10928, 10929, 4221.</summary>
    internal static readonly IReadOnlySet<int> CloudTransients = new HashSet<int> { 40197, 40501, 40613, 49918, 49919, 49920, 10928, 10929, 4221 };

    /// <summary>Network errors surfaced as SQL numbers by the driver (TCP resets and refusals, pipe errors): 64, 121, 233, 10053, 10054, 10060, 10061.</summary>
    internal static readonly IReadOnlySet<int> NetworkTransients = new HashSet<int> { 64, 121, 233, 10053, 10054, 10060, 10061 };

    /// <summary>Named pipes: an overlapped I/O operation in progress during the login (on SqlClient's baseline list).</summary>
    internal const int NamedPipeLoginInProgress = 997;

    /// <summary>
    /// Every number Microsoft.Data.SqlClient's retry logic documents as transient (SqlConfigurableRetryFactory and its
    /// BaselineTransientErrors): a reply holding any of them is retried, whatever else it holds, as SqlClient's own
    /// rule does. So 4060 (cannot open the login's database: recovering or failing over) sent with 18456 is transient.
    /// </summary>
    internal static readonly IReadOnlySet<int> SqlClientTransients = new HashSet<int>(
        DriverDocumentedTransients.Concat(CloudTransients).Concat(NetworkTransients).Append(DeadlockVictim).Append(NamedPipeLoginInProgress));

    /// <summary>Whether SqlClient documents <paramref name="number"/> as transient.</summary>
    public static bool IsSqlClientTransient(int number) => SqlClientTransients.Contains(number);

    /// <summary>The numbers that say the login lacks a permission.</summary>
    public static bool IsPermissionDenied(int number) => number is ObjectPermissionDenied or DatabasePermissionDenied
        or ActionPermissionDenied or ServerPermissionDenied or CannotAccessDatabase or NoPermissionForAction;

    /// <summary>The numbers that say the login itself was refused.</summary>
    public static bool IsLoginRefused(int number) => number is LoginFailed or UntrustedDomainLogin or PasswordMustChange
        or CannotOpenDatabase or CannotOpenDefaultDatabase;
}
