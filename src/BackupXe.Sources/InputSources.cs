using BackupXe.Core.Events;
using BackupXe.Sources.Detection;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeXml;

namespace BackupXe.Sources;

/// <summary>Where the CLI and the daemon turn a path into events.</summary>
public static class InputSources
{
    /// <summary>
    /// A source for any path, chosen by the file's content. A path that cannot be read still gets a source:
    /// one that yields nothing and reports why, so that one bad input never stops the others being analysed.
    /// </summary>
    public static ITraceEventSource Open(string path)
    {
        if (InputPattern.IsPattern(path))
        {
            return OpenPattern(path);
        }

        var detection = InputFormatDetector.Detect(path);
        return detection.Format switch
        {
            InputFormat.Xel => new XelFileSource(path),
            InputFormat.XeXml => new XeXmlEventSource(path),
            InputFormat.Errorlog => new ErrorlogEventSource(path, () => InputFile.OpenRead(path), detection.TextEncoding),
            _ => new UnreadableInputSource(path, detection.Problem ?? InputFormatDetector.NotRecognised),
        };
    }

    /// <summary>
    /// A pattern: a set of .xel files (an event_file rollover set) is one source read in file order, each file
    /// with its own metadata; a pattern matching one file of any format is that file.
    /// </summary>
    private static ITraceEventSource OpenPattern(string pattern)
    {
        var files = InputPattern.Expand(pattern);
        if (files.Count == 0)
        {
            return new UnreadableInputSource(pattern, "no file matches this pattern");
        }

        if (files.Count == 1)
        {
            return Open(files[0]);
        }

        return files.All(f => InputFormatDetector.Detect(f).Format == InputFormat.Xel)
            ? new XelFileSource(pattern, files)
            : new UnreadableInputSource(pattern, $"matches {files.Count} files that are not all .xel; name them one by one instead");
    }
}
