using System.Runtime.CompilerServices;
using System.Text.RegularExpressions;
using BackupXe.Core.Events;

namespace BackupXe.Sources.Xel;

/// <summary>
/// A .xel file in a build without XELite: it yields no events and says, once, how to get them as XE XML.
/// </summary>
/// <remarks>
/// XELite (Microsoft.SqlServer.XEvent.XELite) cannot be restored from this build's package mirror, and the
/// .xel binary layout is undocumented, so the file is not parsed here; the server can turn it into XML instead.
/// </remarks>
public sealed partial class XelFileSource : ITraceEventSource
{
    public XelFileSource(string path)
    {
        Name = path;
    }

    public string Name { get; }

    public string Format => "xel";

    /// <summary>The one problem this source reports: what is missing and the T-SQL that gets the events anyway.</summary>
    public string Explanation =>
        $"{Name} is an Extended Events .xel file. Reading .xel needs XELite (Microsoft.SqlServer.XEvent.XELite), " +
        "which this build of BackupXe lacks. Read it on the server instead: " +
        $"SELECT event_data FROM sys.fn_xe_file_target_read_file(N'{FilePattern(Name)}', NULL, NULL, NULL); " +
        "save the result as XML, then run: backupxe analyze <that file>";

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        status.Unusable = true;
        status.Report("file", Explanation);
        yield break;
    }

    /// <summary>
    /// The pattern fn_xe_file_target_read_file wants: the event_file's base name followed by <c>*.xel</c>, so that
    /// every rollover file (<c>name_0_133...xel</c>) is read, quoted for an N'' literal.
    /// </summary>
    internal static string FilePattern(string path)
    {
        var directory = Path.GetDirectoryName(path);
        var stem = RolloverSuffix().Replace(Path.GetFileNameWithoutExtension(path), string.Empty);
        var pattern = string.IsNullOrEmpty(directory) ? $"{stem}*.xel" : Path.Combine(directory, $"{stem}*.xel");
        return pattern.Replace("'", "''", StringComparison.Ordinal);
    }

    // The event_file target appends "_<n>_<ticks>" to the name it was given; fixtures and copies may keep only "_<n>".
    [GeneratedRegex(@"_\d+(_\d+)?$", RegexOptions.CultureInvariant)]
    private static partial Regex RolloverSuffix();
}
