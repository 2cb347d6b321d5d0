namespace BackupXe.SqlServer.Requirements;

/// <summary>SQL Server's marketing names by product major version (SERVERPROPERTY('ProductMajorVersion')).</summary>
internal static class ProductNames
{
    /// <summary>
    /// The product by SERVERPROPERTY('EngineEdition') first: Azure's version numbers are not comparable with SQL
    /// Server's (the SERVERPROPERTY page), so Azure SQL Database (5) and Managed Instance (8) are named as such.
    /// </summary>
    public static string For(int major, int? engineEdition) => engineEdition switch
    {
        ServerRequirements.AzureSqlDatabaseEngineEdition => "Azure SQL Database",
        ServerRequirements.ManagedInstanceEngineEdition => "Azure SQL Managed Instance",
        _ => For(major),
    };

    public static string For(int major) => major switch
    {
        9 => "SQL Server 2005",
        10 => "SQL Server 2008 / 2008 R2",
        11 => "SQL Server 2012",
        12 => "SQL Server 2014",
        13 => "SQL Server 2016",
        14 => "SQL Server 2017",
        15 => "SQL Server 2019",
        16 => "SQL Server 2022",
        17 => "SQL Server 2025",
        _ => "This SQL Server",
    };
}
