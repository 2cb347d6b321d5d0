using System.Security.Cryptography;
using BackupXe.Sources;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class FileSampleTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-sample-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private byte[] SampleOf(byte[] content, string name)
    {
        var path = Path.Combine(_folder, name);
        File.WriteAllBytes(path, content);
        using var file = File.OpenRead(path);
        return FileSample.Of(file);
    }

    private static byte[] Random(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    [Fact]
    public void Two_members_of_one_length_that_differ_in_their_last_buffer_have_different_samples()
    {
        // As two files of a rollover set: the same header, other events at the end
        var first = Random(4 * 1024 * 1024, 1);
        var second = (byte[])first.Clone();
        second[^100] ^= 0xFF;

        Assert.NotEqual(SampleOf(first, "a.xel"), SampleOf(second, "b.xel"));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1_975_718)]
    [InlineData((4 * 1024 * 1024) - 1)]
    public void A_difference_in_a_sampled_block_changes_the_sample(int offset)
    {
        var first = Random(4 * 1024 * 1024, 2);
        var second = (byte[])first.Clone();
        // 1,975,718 starts the eighth inner block: 64 KB + (4 MB - 2 x 64 KB - 4 KB) x 8 / 17.
        second[offset] ^= 1;

        Assert.NotEqual(SampleOf(first, "a.xel"), SampleOf(second, "b.xel"));
    }

    [Fact]
    public void A_difference_between_the_sampled_blocks_leaves_the_sample_equal_so_the_caller_compares_the_whole()
    {
        var first = Random(4 * 1024 * 1024, 3);
        var second = (byte[])first.Clone();
        second[(64 * 1024) + 10] ^= 1;

        Assert.Equal(SampleOf(first, "a.xel"), SampleOf(second, "b.xel"));
    }

    [Fact]
    public void A_file_of_a_megabyte_or_less_is_hashed_whole()
    {
        var content = Random(1024 * 1024, 4);

        Assert.Equal(SHA256.HashData(content), SampleOf(content, "small.xel"));
    }
}
