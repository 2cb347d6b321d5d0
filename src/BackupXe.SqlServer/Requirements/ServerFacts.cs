namespace BackupXe.SqlServer.Requirements;

/// <summary>What <c>backupxe-server-facts.sql</c> returns about a server and the current login.</summary>
/// <param name="ProductMajorVersion">13 = SQL Server 2016, 14 = 2017, 15 = 2019, 16 = 2022.</param>
/// <param name="Edition">SERVERPROPERTY('Edition'), for messages; null when unknown.</param>
/// <param name="Permissions">Effective server permissions from fn_my_permissions(NULL, 'SERVER').</param>
/// <param name="EngineEdition">SERVERPROPERTY('EngineEdition'); 5 is Azure SQL Database.</param>
/// <param name="LoginName">SUSER_SNAME(), used in the GRANT statements suggested.</param>
public sealed record ServerFacts(
    int ProductMajorVersion,
    string? Edition,
    IReadOnlySet<string> Permissions,
    int? EngineEdition = null,
    string? LoginName = null);
