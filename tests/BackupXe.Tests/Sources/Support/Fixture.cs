namespace BackupXe.Tests.Sources.Support;

/// <summary>The committed real-world inputs under Fixtures/ (see the SOURCES.md beside them).</summary>
internal static class Fixture
{
    public static string Tf3014Sql2014 => At("errorlog", "tf3014-backup-sql2014.log");

    public static string Tf3213Sql2005 => At("errorlog", "tf3213-buffers-sql2005sp2.txt");

    public static string TestXel => At("xel", "TestXel_0.xel");

    /// <summary>A file of Fixtures/realworld (SOURCES.md and SOURCES-added.md say where each comes from).</summary>
    public static string RealWorld(string file) => At("realworld", file);

    /// <summary>A file of Fixtures/realworld2, the second set of genuine output (SOURCES.md beside them).</summary>
    public static string RealWorld2(string file) => At("realworld2", file);

    /// <summary>A file of Fixtures/realworld4, the fourth set of genuine output (SOURCES.md beside them).</summary>
    public static string RealWorld4(string file) => At("realworld4", file);

    private static string At(string folder, string file) => Path.Combine(AppContext.BaseDirectory, "Fixtures", folder, file);
}
