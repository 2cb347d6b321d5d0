using BackupXe.Sources.XeXml;
using Xunit;

namespace BackupXe.Tests.Sources.XeXml;

public sealed class StringPoolTests
{
    [Fact]
    public void A_text_seen_again_is_the_same_string()
    {
        var texts = new StringPool();

        var first = texts.Get("BACKUPBUFFER".AsSpan());
        var again = texts.Get("BACKUPBUFFER".ToCharArray());

        Assert.Equal("BACKUPBUFFER", first);
        Assert.Same(first, again);
    }

    [Fact]
    public void A_text_longer_than_the_limit_is_returned_but_not_kept()
    {
        var texts = new StringPool();
        var longText = new string('x', StringPool.MaxLength + 1);

        var first = texts.Get(longText);
        var again = texts.Get(longText);

        Assert.Equal(longText, again);
        Assert.NotSame(first, again);
    }

    [Fact]
    public void Texts_that_share_a_slot_take_it_over_and_are_still_given_back_whole()
    {
        // Given more distinct texts than there are slots, so that some share one
        var texts = new StringPool();
        var written = Enumerable.Range(0, StringPool.Slots * 4).Select(i => $"db{i}").ToList();

        // When each is asked for twice in a row
        var pairs = written.Select(w => (First: texts.Get(w), Again: texts.Get(w))).ToList();

        // Then each comes back equal, and the second time as the string kept the first time
        Assert.All(pairs.Zip(written), p =>
        {
            Assert.Equal(p.Second, p.First.First);
            Assert.Same(p.First.First, p.First.Again);
        });
        Assert.Equal(string.Empty, texts.Get(ReadOnlySpan<char>.Empty));
    }
}
