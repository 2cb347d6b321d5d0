using System.Text;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// SQL Agent's job history stores a whole step on one line ("Executed as user: ...", each message ending in
/// " [SQLSTATE 01000] (Message N)"). One damaged message in it, a control character or figures SQL Server never
/// writes, is skipped and located; the step's other messages, and the other operations, are read.
/// </summary>
public class AgentStepLineTests
{
    private static readonly string[] Sales =
    [
        "10 percent processed.",
        "100 percent processed.",
        "Processed 998 pages for database 'Sales', file 'Sales' on file 1.",
        "Processed 2 pages for database 'Sales', file 'Sales_log' on file 1.",
        "BACKUP DATABASE successfully processed 1000 pages in 4.000 seconds (1.953 MB/sec).",
    ];

    private static readonly string[] Hr = [.. Sales.Select(m => m.Replace("Sales", "HR", StringComparison.Ordinal))];

    private static byte[] Step(IEnumerable<string> messages) => Encoding.UTF8.GetBytes(
        "Executed as user: NT SERVICE\\SQLSERVERAGENT. " + string.Concat(messages.Select(m => m + " [SQLSTATE 01000] (Message 3211)  ")) + "The step succeeded.\r\n");

    public static TheoryData<string, int, string> Damage => new()
    {
        { "a bell inside a percent line", 1, "100 percent pro\u0007cessed." },
        { "an escape sequence inside a page line", 2, "Processed 998 pages for database 'Sales', file \u001B[2J'Sales' on file 1." },
    };

    [Theory]
    [MemberData(nameof(Damage))]
    public async Task A_control_character_in_one_message_of_a_one_line_step_costs_that_message_only(string what, int index, string damaged)
    {
        // Given
        var clean = await HostileRun.AnalyzeAsync(Step([.. Sales, .. Hr]), "step.txt");
        var messages = Sales.ToArray();
        messages[index] = damaged;

        // When
        var run = await HostileRun.AnalyzeAsync(Step([.. messages, .. Hr]), "step.txt");

        // Then
        run.AssertInvariants(what);
        Assert.Equal(2, run.ExitCode);
        Assert.Equal(2, clean.Operations.Count);
        run.AssertKeeps(clean, what);
        var problem = Assert.Single(run.Problems);
        Assert.Equal("line 1", problem.Location);
        Assert.Contains($"message {index + 1} of the line's messages holds binary or control characters", problem.Message);
    }

    [Theory]
    [InlineData("1000 pages in 1e300 seconds (1.953 MB/sec).")]
    [InlineData("1000 pages in 4.000 seconds (NaN MB/sec).")]
    [InlineData("-1000 pages in 4.000 seconds (1.953 MB/sec).")]
    public async Task Impossible_figures_in_one_message_of_a_one_line_step_are_located_and_the_rest_read(string figures)
    {
        // Given the first backup's completion line with figures SQL Server does not write
        var messages = Sales.ToArray();
        messages[^1] = "BACKUP DATABASE successfully processed " + figures;

        // When
        var run = await HostileRun.AnalyzeAsync(Step([.. messages, .. Hr]), "step.txt");

        // Then
        run.AssertInvariants(figures);
        Assert.True(run.ExitCode == 2, $"{figures}: exit {run.ExitCode}");
        Assert.Contains(run.Problems, p => p.Location == "line 1");
        Assert.Contains(run.Operations, o => o.Database == "HR" && o.Status == Core.Reporting.OperationStatus.Completed);
    }
}
