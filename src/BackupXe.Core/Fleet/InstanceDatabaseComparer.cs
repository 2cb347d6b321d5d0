namespace BackupXe.Core.Fleet;

/// <summary>An instance and a database (or group) name compared as SQL Server compares names by default: without case.</summary>
internal sealed class InstanceDatabaseComparer : IEqualityComparer<(string Instance, string Database)>
{
    public static readonly InstanceDatabaseComparer Instance = new();

    public bool Equals((string Instance, string Database) x, (string Instance, string Database) y)
        => string.Equals(x.Instance, y.Instance, StringComparison.OrdinalIgnoreCase) && string.Equals(x.Database, y.Database, StringComparison.OrdinalIgnoreCase);

    public int GetHashCode((string Instance, string Database) obj)
        => HashCode.Combine(StringComparer.OrdinalIgnoreCase.GetHashCode(obj.Instance), StringComparer.OrdinalIgnoreCase.GetHashCode(obj.Database));
}
