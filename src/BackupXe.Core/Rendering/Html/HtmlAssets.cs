using System.Formats.Tar;
using System.IO.Compression;
using System.Security.Cryptography;
using System.Text;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering.Html;

/// <summary>
/// What every HTML report carries inline: uPlot (read from the registry tarball embedded in this assembly, so
/// the build needs no npm and the bytes are the ones package-lock.json's integrity hash names), its licence,
/// the report's own script and styles, and a Content-Security-Policy that allows exactly those scripts and
/// styles by hash and nothing else: no network, no other script, even if an escaping bug let markup through.
/// </summary>
internal sealed class HtmlAssets
{
    public const string ChartLibraryVersion = "1.6.32";

    private static readonly Lazy<HtmlAssets> Loaded = new(Load);

    private HtmlAssets(string chartScript, string chartStyles, string chartLicense, string reportScript, string reportStyles)
    {
        ChartScript = chartScript;
        ChartLicense = chartLicense;
        ReportScript = reportScript;
        Styles = chartStyles + "\n" + reportStyles;
        ContentSecurityPolicy = "default-src 'none'; "
            + $"script-src '{Hash(ChartScript)}' '{Hash(ReportScript)}'; "
            + $"style-src '{Hash(Styles)}'; "
            + "base-uri 'none'; form-action 'none'";
    }

    public static HtmlAssets Instance => Loaded.Value;

    public string ChartScript { get; }

    public string ChartLicense { get; }

    public string ReportScript { get; }

    public string Styles { get; }

    public string ContentSecurityPolicy { get; }

    /// <summary>A CSP source expression for an inline element's exact text.</summary>
    public static string Hash(string content) => "sha256-" + Convert.ToBase64String(SHA256.HashData(Encoding.UTF8.GetBytes(content)));

    private static HtmlAssets Load()
    {
        var files = new Dictionary<string, string>(StringComparer.Ordinal);
        using (var tarball = Resource("BackupXe.Html.uplot.tgz"))
        using (var gzip = new GZipStream(tarball, CompressionMode.Decompress))
        using (var tar = new TarReader(gzip))
        {
            while (tar.GetNextEntry() is { } entry)
            {
                if (entry.Name is "package/dist/uPlot.iife.min.js" or "package/dist/uPlot.min.css" or "package/LICENSE" && entry.DataStream is { } data)
                {
                    using var reader = new StreamReader(data, Encoding.UTF8);
                    files[entry.Name] = reader.ReadToEnd();
                }
            }
        }

        return new HtmlAssets(
            Required(files, "package/dist/uPlot.iife.min.js"),
            Required(files, "package/dist/uPlot.min.css"),
            Required(files, "package/LICENSE"),
            Text("BackupXe.Html.report.js"),
            Text("BackupXe.Html.report.css"));
    }

    private static string Required(Dictionary<string, string> files, string name)
        => files.TryGetValue(name, out var text)
            ? text
            : throw new InvalidOperationException($"The embedded uPlot {ChartLibraryVersion} package has no {name}.");

    private static string Text(string name)
    {
        using var reader = new StreamReader(Resource(name), Encoding.UTF8);
        return reader.ReadToEnd();
    }

    private static Stream Resource(string name)
        => typeof(HtmlAssets).Assembly.GetManifestResourceStream(name)
            ?? throw new InvalidOperationException($"The resource {name} is not embedded in BackupXe.Core.");
}
