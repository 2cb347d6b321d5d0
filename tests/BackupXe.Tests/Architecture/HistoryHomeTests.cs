using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// "History" names one place (docs/development.md, "Where a change goes"): the stored record (Core/History) and its
/// stores (the BackupXe.History project). What reads or compares the history lives in a folder named for the
/// question it answers (Baselines, Restores) or for what it talks to (Msdb, Imports, BackupLists).
/// </summary>
public sealed class HistoryHomeTests
{
    [Fact]
    public void Only_the_stored_record_and_its_stores_are_named_history()
    {
        var src = Path.Combine(Repository.Root, "src");
        // A folder counts by the files it holds: a move leaves an empty one behind in a working copy, not in git.
        var elsewhere = Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories)
            .Select(file => Path.GetRelativePath(src, Path.GetDirectoryName(file)!).Replace('\\', '/'))
            .Distinct(StringComparer.Ordinal)
            .Where(path => !path.Split('/').Any(part => part is "bin" or "obj"))
            .Where(path => path.Split('/').Any(part => part.Contains("History", StringComparison.OrdinalIgnoreCase)))
            .Where(path => path is not "BackupXe.Core/History" && !path.StartsWith("BackupXe.History", StringComparison.Ordinal));

        Assert.Empty(elsewhere);
    }
}
