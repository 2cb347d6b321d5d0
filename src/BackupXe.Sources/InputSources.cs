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
        var detection = InputFormatDetector.Detect(path);
        return detection.Format switch
        {
            InputFormat.Xel => new XelFileSource(path),
            InputFormat.XeXml => new XeXmlEventSource(path),
            InputFormat.Errorlog => new ErrorlogEventSource(path, () => InputFile.OpenRead(path), detection.TextEncoding),
            _ => new UnreadableInputSource(path, detection.Problem ?? InputFormatDetector.NotRecognised),
        };
    }
}
