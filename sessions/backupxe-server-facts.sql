/*
    The facts BackupXe checks before it creates or streams a session (ServerRequirements holds the rules).
    Two result sets:
      1. one row: product_major_version, edition, engine_edition, login_name
      2. one row per effective server permission of the current login: permission_name
*/
SET NOCOUNT ON;

SELECT
    -- ProductMajorVersion is NULL before SQL Server 2012: fall back to the first part of ProductVersion.
    product_major_version = COALESCE(
        CONVERT(int, SERVERPROPERTY('ProductMajorVersion')),
        CONVERT(int, PARSENAME(CONVERT(nvarchar(128), SERVERPROPERTY('ProductVersion')), 4))),
    edition = CONVERT(nvarchar(128), SERVERPROPERTY('Edition')),
    -- 5 = Azure SQL Database, which has database-scoped sessions only.
    engine_edition = CONVERT(int, SERVERPROPERTY('EngineEdition')),
    login_name = SUSER_SNAME();

-- Effective permissions: what CONTROL SERVER or sysadmin imply is listed too, so no role check is needed.
SELECT permission_name
FROM sys.fn_my_permissions(NULL, N'SERVER');
