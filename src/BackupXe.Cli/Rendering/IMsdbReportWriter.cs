using System.Text.Json;
using BackupXe.Core.Rendering.Html;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// A report of msdb backups over a span (the restore chain, the restore estimate) in the formats the msdb verbs write:
/// each writer gives its own body, the heading, times and JSON envelope are <see cref="MsdbSpan"/>'s.
/// </summary>
internal interface IMsdbReportWriter<T>
{
    /// <summary>The report's name in headings ("Restore chain").</summary>
    static abstract string Title { get; }

    /// <summary>The array's property in the JSON envelope.</summary>
    static abstract string JsonProperty { get; }

    static abstract void Console(TextWriter output, IReadOnlyList<T> items, DateTime since);

    static abstract void Markdown(TextWriter output, IReadOnlyList<T> items, DateTime since);

    /// <summary>The items as a JSON array property of an object being written (check's report, the verb's envelope).</summary>
    static abstract void Json(Utf8JsonWriter json, string property, IReadOnlyList<T> items);

    static abstract HtmlTextSection Html(IReadOnlyList<T> items, DateTime since);
}
