using System.Data;
using BackupXe.SqlServer;
using BackupXe.Tests.Support.Tds;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// The TDS double against the real driver (Microsoft.Data.SqlClient 2.1.4): these prove the double speaks the
/// protocol the driver expects and that the driver's failures come out as measured in issue 9. They say nothing
/// about SQL Server itself.
/// </summary>
public class TdsServerDoubleTests
{
    [Fact]
    public async Task Driver_reads_every_column_type_the_double_sends()
    {
        // Given
        var at = new DateTime(2024, 5, 1, 1, 30, 0, 123).AddTicks(4567);
        var id = Guid.Parse("6f9619ff-8b86-d011-b42d-00c04fc964ff");
        var xml = "<event name=\"backup_restore_progress_trace\">" + new string('x', 9000) + "</event>";
        var set = new TdsResultSet(
                TdsColumn.Int("i"), TdsColumn.BigInt("b"), TdsColumn.NVarChar("s", 128), TdsColumn.XmlAsNVarChar("x"),
                TdsColumn.VarBinary("v", 16), TdsColumn.DateTime("dt"), TdsColumn.DateTime2("dt2"), TdsColumn.Bit("f"), TdsColumn.UniqueIdentifier("g"))
            .Row(42, 5_000_000_000L, "Sales'DB", xml, new byte[] { 1, 2, 3 }, new DateTime(2024, 5, 1, 1, 30, 0, 120), at, true, id)
            .Row(null, null, null, null, null, null, null, null, null);
        await using var server = TdsServerDouble.Start(new TdsScript().On("SELECT everything", TdsResponse.Of(set)));
        await using var connection = await new SqlConnectionFactory(TdsClient.Settings(server)).OpenAsync(CancellationToken.None);

        // When
        await using var command = new SqlCommand("SELECT everything;", connection);
        await using var reader = await command.ExecuteReaderAsync();

        // Then
        Assert.True(await reader.ReadAsync());
        Assert.Equal(42, reader.GetInt32(0));
        Assert.Equal(5_000_000_000L, reader.GetInt64(1));
        Assert.Equal("Sales'DB", reader.GetString(2));
        Assert.Equal(xml, reader.GetString(3));
        Assert.Equal(new byte[] { 1, 2, 3 }, (byte[])reader.GetValue(4));
        Assert.Equal(new DateTime(2024, 5, 1, 1, 30, 0, 120), reader.GetDateTime(5));
        Assert.Equal(at, reader.GetDateTime(6));
        Assert.True(reader.GetBoolean(7));
        Assert.Equal(id, reader.GetGuid(8));
        Assert.True(await reader.ReadAsync());
        Assert.All(Enumerable.Range(0, 9), i => Assert.True(reader.IsDBNull(i)));
        Assert.False(await reader.ReadAsync());
    }
}
