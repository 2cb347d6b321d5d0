using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Rendering.Html;
using BackupXe.Core.Rendering;

namespace BackupXe.Cli.Rendering;

/// <summary>What the msdb reports share: the heading, msdb's local times, the JSON envelope and the HTML page.</summary>
internal static class MsdbSpan
{
    /// <summary>"Restore chain (backups since 2024-05-01 01:00, server local time)": msdb's, or a history file's.</summary>
    public static string Heading(string title, DateTime since) => $"{title} (backups since {Time(since)}, server local time)";

    /// <summary>The report in <paramref name="format"/> (console, markdown, json or html) for <paramref name="server"/>.</summary>
    public static void Write<T, TWriter>(TextWriter output, string format, string server, DateTime since, IReadOnlyList<T> items)
        where TWriter : IMsdbReportWriter<T>
    {
        switch (format)
        {
            case "json":
                WriteJson(output, server, since, json => TWriter.Json(json, TWriter.JsonProperty, items));
                break;
            case "markdown":
                TWriter.Markdown(output, items, since);
                break;
            case "html":
                var html = new HtmlReportWriter(output, "BackupXe " + TWriter.Title.ToLowerInvariant() + " of " + server);
                html.WriteTextSection(TWriter.Html(items, since));
                html.Finish(null);
                break;
            default:
                TWriter.Console(output, items, since);
                break;
        }
    }

    /// <summary>One indented JSON object: the server, the span's start, then what <paramref name="body"/> writes.</summary>
    public static void WriteJson(TextWriter output, string server, DateTime since, Action<Utf8JsonWriter> body)
    {
        var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteString("server", server);
            json.WriteString("since", Local(since));
            body(json);
            json.WriteEndObject();
        }

        output.WriteLine(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }

    public static void WriteTime(Utf8JsonWriter json, string name, DateTime? value)
    {
        if (value is { } at)
        {
            json.WriteString(name, Local(at));
        }
        else
        {
            json.WriteNull(name);
        }
    }

    /// <summary>msdb keeps server local time without an offset: written as such, never with a Z.</summary>
    public static string Local(DateTime at) => at.ToString("yyyy-MM-dd'T'HH:mm:ss", CultureInfo.InvariantCulture);

    public static string Time(DateTime at) => at.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture);
}
