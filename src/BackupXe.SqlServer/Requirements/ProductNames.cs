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

    /// <summary>One table of names for the project: the one input versions are named by (<see cref="Core.Events.ServerVersion"/>).</summary>
    public static string For(int major) => major is >= 7 and <= 17 ? Core.Events.ServerVersion.ProductName(major) : "This SQL Server";
}
