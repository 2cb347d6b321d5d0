namespace BackupXe.Tests.Support;

/// <summary>The real-world public outputs under Fixtures/realworld (byte-for-byte copies; SOURCES.md beside them).</summary>
internal static class RealWorld
{
    public static string Path(string file) => System.IO.Path.Combine(AppContext.BaseDirectory, "Fixtures", "realworld", file);
}
