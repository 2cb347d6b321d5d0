using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Rendered output against the committed snapshots in tests/BackupXe.Tests/Snapshots. A difference writes
/// <c>*.received.txt</c> beside the snapshot in the source tree, for a reviewer to diff and accept deliberately.
/// </summary>
internal static class Snapshot
{
    public static async Task MatchAsync(string name, string output)
    {
        var path = Path.Combine(Repository.Root, "tests", "BackupXe.Tests", "Snapshots", name);
        var actual = Normalise(output);
        var expected = File.Exists(path) ? Normalise(await File.ReadAllTextAsync(path)) : null;
        if (expected != actual)
        {
            await File.WriteAllTextAsync(Path.ChangeExtension(path, ".received.txt"), actual);
        }

        Assert.Equal(expected, actual);
    }

    // Line ends only: the renderers write none of their own padding, and a Windows checkout may add carriage returns.
    private static string Normalise(string text) => text.Replace("\r\n", "\n", StringComparison.Ordinal);
}
