using BackupXe.Sources.HeaderOnly;
using BackupXe.Sources.OlaOutput;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A line of tens of MB in the history formats (a 20 MB <c>Command:</c> line in Ola Hallengren's job output, a
/// 20 MB cell in RESTORE HEADERONLY text). Before the fix each was read whole (533 MiB for 20 MB in
/// <c>history import</c>); it is now cut at 64 K characters like every text input's lines, located, and the lines
/// after it are read. The allocation of the reading thread is measured: holding the line would allocate at least
/// twice its size in UTF-16.
/// </summary>
public class HugeHistoryLineTests
{
    private const int LineChars = 20 << 20;

    // Reading the small commands around the huge line allocates well under a MB; the line alone would be 40 MB.
    private const long AllocationBound = 8L << 20;

    [Fact]
    public void A_huge_Ola_command_line_is_cut_and_located_and_the_next_command_is_read_in_bounded_memory()
    {
        // Given: a command whose device path is 20 M characters, between two sound commands
        var start = new DateTime(2024, 6, 1, 1, 0, 0);
        var text = new OlaJobOutput()
            .Command(start, TimeSpan.FromSeconds(5), "BACKUP DATABASE [Before] TO DISK = N'X:\\A.bak'", pages: 1000, engineSeconds: 4)
            .Command(start.AddMinutes(1), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Huge] TO DISK = N'X:\\" + new string('A', LineChars) + "'", pages: 1000, engineSeconds: 4)
            .Command(start.AddMinutes(2), TimeSpan.FromSeconds(5), "BACKUP DATABASE [After] TO DISK = N'X:\\C.bak'", pages: 1000, engineSeconds: 4)
            .ToString();
        var hugeLine = text.AsSpan(0, text.IndexOf("Command: BACKUP DATABASE [Huge]", StringComparison.Ordinal)).Count('\n') + 1;

        // When
        var reader = new OlaJobOutputReader("job.txt");
        var before = GC.GetAllocatedBytesForCurrentThread();
        var databases = reader.Read(new StringReader(text)).Select(operation => operation.Database).ToList();
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // Then
        Assert.Contains("Before", databases);
        Assert.Contains("After", databases);
        var problem = Assert.Single(reader.Problems, p => p.Message.Contains("only the first 65536 are kept", StringComparison.Ordinal));
        Assert.Equal($"line {hugeLine}", problem.Location);
        Assert.StartsWith($"{"Command: BACKUP DATABASE [Huge] TO DISK = N'X:\\".Length + LineChars + 1} characters long", problem.Message);
        Assert.True(allocated < AllocationBound, $"{allocated >> 20} MB allocated");
    }

    [Fact]
    public void A_huge_HEADERONLY_row_is_skipped_as_cut_and_located_and_the_next_row_is_read_in_bounded_memory()
    {
        // Given: the real RESTORE HEADERONLY result, its row with a 20 M character database name, then the row sound
        var lines = File.ReadAllLines(RealWorld.Path("S07_bobsql_sql2022_s3_restore_headeronly.tsv"));
        var huge = lines[1].Replace("WideWorldImporters", new string('W', LineChars), StringComparison.Ordinal);
        var text = string.Join("\r\n", lines[0], huge, lines[1]);

        // When
        var reader = new RestoreHeaderOnlyReader();
        var before = GC.GetAllocatedBytesForCurrentThread();
        var records = reader.Read(new StringReader(text)).ToList();
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // Then
        Assert.Equal("WideWorldImporters", Assert.Single(records).Database);
        var problem = Assert.Single(reader.Problems);
        Assert.Equal("line 2", problem.Location);
        Assert.Equal($"{huge.Length} characters long; only the first 65536 are kept; row skipped", problem.Message);
        Assert.True(allocated < AllocationBound, $"{allocated >> 20} MB allocated");
    }
}
