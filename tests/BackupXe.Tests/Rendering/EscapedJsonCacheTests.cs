using System.Text;
using System.Text.Json;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Rendering.Support;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Rendering;

/// <summary>Long texts escaped once per run (<see cref="EscapedJsonCache"/>) against the writer escaping them each time.</summary>
public sealed class EscapedJsonCacheTests
{
    [Fact]
    public void Recurring_and_new_texts_of_any_content_are_the_bytes_the_writer_writes()
    {
        // Given runs of texts long and short, repeated, of every character class the contract escapes, lone surrogates included
        var longText =
            from parts in GeneratedReports.Text.ListOf()
            from tail in Gen.Elements("", "\uD800", "x\uDC00", "😀")
            select string.Concat(parts) + new string('.', EscapedJsonCache.MinChars) + tail;
        var runs = Gen.OneOf(GeneratedReports.Text, longText).ListOf().Select(texts => texts.Concat(texts).ToList());

        // Then each run written through one cache gives what the writer gives, or fails where it fails
        Prop.ForAll(runs.ToArbitrary(), texts =>
            Assert.Equal(Written(texts, cache: null), Written(texts, new EscapedJsonCache())))
            .Check(Config.QuickThrowOnFailure.WithMaxTest(300).WithReplay(20261122UL, 0x9E3779B97F4A7C15UL));
    }

    [Fact]
    public void More_distinct_texts_than_it_keeps_still_write_every_one_right()
    {
        // Given far more distinct long texts than the cache holds, each written twice
        var texts = Enumerable.Range(0, 3000).Select(i => $"BACKUP DATABASE [Db{i}] TO DISK = N'D:\\b\\{i}.bak' WITH COPY_ONLY; -- {new string('+', 80)}").ToList();
        texts.AddRange(texts);

        // Then
        Assert.Equal(Written(texts, cache: null), Written(texts, new EscapedJsonCache()));
    }

    private static string Written(IReadOnlyList<string> texts, EscapedJsonCache? cache)
    {
        using var stream = new MemoryStream();
        try
        {
            using var writer = new Utf8JsonWriter(stream, ReportJsonFields.WriterOptions(indented: true));
            var name = JsonEncodedText.Encode("text");
            writer.WriteStartArray();
            foreach (var text in texts)
            {
                writer.WriteStartObject();
                if (cache?.Escaped(text) is { } escaped)
                {
                    writer.WriteString(name, escaped);
                    writer.WriteEndObject();
                    writer.WriteStringValue(escaped);
                }
                else
                {
                    writer.WriteString(name, text);
                    writer.WriteEndObject();
                    writer.WriteStringValue(text);
                }
            }

            writer.WriteEndArray();
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            return $"threw {e.GetType().Name}";
        }

        return Encoding.UTF8.GetString(stream.ToArray());
    }
}
