using System.Text;
using BackupXe.Sources;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class ImportFileStreamingTests
{
    [Fact]
    public async Task An_ola_output_gives_its_first_record_before_the_file_is_read_to_its_end()
    {
        // Given: 2,000 commands (about 850 KB), several times the detection window and read buffer
        var output = new OlaJobOutput();
        var start = new DateTime(2024, 5, 1, 1, 0, 0);
        for (var i = 0; i < 2_000; i++)
        {
            output.Command(start.AddMinutes(5 * i), TimeSpan.FromSeconds(30), $"BACKUP LOG [Sales] TO DISK = N'X:\\b\\Sales_{i}.trn' WITH CHECKSUM", pages: 1000, engineSeconds: 3);
        }

        var bytes = Encoding.UTF8.GetBytes(output.ToString());
        var stream = new ReadCountingStream(bytes);

        // When
        await using var reading = await ImportFile.OpenAsync("ola.txt", stream, CancellationToken.None);
        var records = reading.ReadRecordsAsync(CancellationToken.None).GetAsyncEnumerator();
        Assert.True(await records.MoveNextAsync());
        var readAtFirst = stream.BytesRead;
        var count = 1;
        while (await records.MoveNextAsync())
        {
            count++;
        }

        await records.DisposeAsync();

        // Then: the import holds a record at a time, not the file's
        Assert.Equal(ImportFile.OlaOutputFormat, reading.Format);
        Assert.Equal("PROD01", reading.Server);
        Assert.Equal(2_000, count);
        Assert.True(readAtFirst < bytes.Length / 4, $"{readAtFirst} of {bytes.Length} bytes read before the first record");
        Assert.True(stream.BytesRead >= bytes.Length);
    }
}
