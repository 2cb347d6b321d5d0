using System.Text;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Outputs saved with CR alone ending each line (a classic Mac editor, a tool that rewrites line ends). The readers
/// always took CR as a line end; format detection split lines at LF only, so such a file was refused whole as no
/// known format. Each is now read as its CR LF form is.
/// </summary>
public class CrOnlyLineEndTests
{
    public static TheoryData<string, string> Outputs => new()
    {
        { "client.txt", File.ReadAllText(RealWorld.Path("S13_sqlworkday_2012_restore_stats_output.txt")) },
        {
            "ola.txt", new OlaJobOutput()
                .Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [First] TO DISK = N'X:\\F.bak'", pages: 1000, engineSeconds: 4)
                .Command(new DateTime(2024, 6, 1, 1, 1, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Second] TO DISK = N'X:\\S.bak'", pages: 1000, engineSeconds: 4)
                .ToString()
        },
    };

    [Theory]
    [MemberData(nameof(Outputs))]
    public async Task Given_an_output_with_CR_only_line_ends_when_analysed_then_it_reads_as_with_CR_LF(string name, string text)
    {
        // Given the same output with CR LF and with CR alone
        var lines = text.ReplaceLineEndings("\n");
        var clean = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(lines.Replace("\n", "\r\n", StringComparison.Ordinal)), name);
        Assert.NotEmpty(clean.Completed);

        // When
        var crOnly = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(lines.Replace('\n', '\r')), name);

        // Then
        crOnly.AssertInvariants(name);
        Assert.Equal(clean.ExitCode, crOnly.ExitCode);
        Assert.Equal(clean.Completed, crOnly.Completed);
        Assert.Equal(clean.Problems.Select(p => p.Message), crOnly.Problems.Select(p => p.Message));
    }
}
