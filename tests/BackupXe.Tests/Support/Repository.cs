namespace BackupXe.Tests.Support;

/// <summary>The checkout these tests were built from: the folder above the test assembly that holds BackupXe.sln.</summary>
internal static class Repository
{
    public static string Root { get; } = Find();

    private static string Find()
    {
        var directory = new DirectoryInfo(AppContext.BaseDirectory);
        while (directory is not null && !File.Exists(Path.Combine(directory.FullName, "BackupXe.sln")))
        {
            directory = directory.Parent;
        }

        return directory?.FullName ?? throw new InvalidOperationException("BackupXe.sln not found above " + AppContext.BaseDirectory);
    }
}
