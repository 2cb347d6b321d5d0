using System.Globalization;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Client;

/// <summary>Typed reads by column name that tolerate NULL and the integer widths differing between builds.</summary>
internal static class SqlRows
{
    public static string? Text(SqlDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : Convert.ToString(reader.GetValue(ordinal), CultureInfo.InvariantCulture);
    }

    public static long? Number(SqlDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : Convert.ToInt64(reader.GetValue(ordinal), CultureInfo.InvariantCulture);
    }

    public static bool? Flag(SqlDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : Convert.ToBoolean(reader.GetValue(ordinal), CultureInfo.InvariantCulture);
    }
}
