using System.Text;

namespace BackupXe.Tests.Sources.Support;

/// <summary>A throwaway input file, deleted with its folder when the test ends.</summary>
internal sealed class TempInput : IDisposable
{
    private readonly string _folder;

    private TempInput(string fileName)
    {
        _folder = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "backupxe-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_folder);
        Path = System.IO.Path.Combine(_folder, fileName);
    }

    public string Path { get; }

    public static TempInput WithText(string text, Encoding encoding, string fileName = "input.txt")
    {
        var input = new TempInput(fileName);
        File.WriteAllText(input.Path, text, encoding);
        return input;
    }

    public static TempInput WithBytes(byte[] bytes, string fileName = "input.bin")
    {
        var input = new TempInput(fileName);
        File.WriteAllBytes(input.Path, bytes);
        return input;
    }

    /// <summary>A path in a fresh folder where no file exists.</summary>
    public static TempInput Nowhere(string fileName = "missing.xml") => new(fileName);

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
