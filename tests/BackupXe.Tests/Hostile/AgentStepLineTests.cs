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

    public static TheoryData<int> FoldWidths => [.. Enumerable.Range(40, 21)];

    /// <summary>The text cut every <paramref name="width"/> characters, as a copy through a fixed-width window folds it.</summary>
    private static byte[] Folded(byte[] text, int width)
    {
        var line = Encoding.UTF8.GetString(text).TrimEnd('\r', '\n');
        var pieces = Enumerable.Range(0, (line.Length + width - 1) / width).Select(i => line.Substring(i * width, Math.Min(width, line.Length - (i * width))));
        return Encoding.UTF8.GetBytes(string.Join("\r\n", pieces) + "\r\n");
    }

    [Theory]
    [MemberData(nameof(FoldWidths))]
    public async Task A_one_line_step_folded_by_a_copy_is_read_whole(int width)
    {
        // Given
        var clean = await HostileRun.AnalyzeAsync(Step([.. Sales, .. Hr]), "step.txt");

        // When
        var run = await HostileRun.AnalyzeAsync(Folded(Step([.. Sales, .. Hr]), width), "step.txt");

        // Then
        run.AssertInvariants($"folded at {width}");
        Assert.Equal(0, run.ExitCode);
        Assert.Empty(run.Problems);
        Assert.Equal(2, run.Operations.Count);
        run.AssertKeeps(clean, $"folded at {width}");
        Assert.All(run.Operations, o => Assert.Equal(1.953, o.ThroughputMBps));
    }

    [Theory]
    [InlineData(40)]
    [InlineData(53)]
    public async Task A_damaged_message_in_a_folded_one_line_step_costs_that_message_only(int width)
    {
        // Given
        var messages = Sales.ToArray();
        messages[1] = "100 percent pro\u0007cessed.";

        // When
        var run = await HostileRun.AnalyzeAsync(Folded(Step([.. messages, .. Hr]), width), "step.txt");

        // Then
        run.AssertInvariants($"folded at {width}");
        Assert.Equal(2, run.ExitCode);
        var problem = Assert.Single(run.Problems);
        Assert.Equal("line 1", problem.Location);
        Assert.Contains("message 2 of the line's messages holds binary or control characters", problem.Message);
        Assert.Equal(["HR", "Sales"], run.Operations.Select(o => o.Database).Order());
    }

    public static TheoryData<int> SuffixCuts => [.. Enumerable.Range(1, "[SQLSTATE 01000]".Length - 1)];

    [Theory]
    [MemberData(nameof(SuffixCuts))]
    public async Task A_fold_inside_the_suffix_of_a_message_on_its_own_line_is_no_problem(int cut)
    {
        // Given Agent's per-message lines, the completion line folded inside its " [SQLSTATE 01000]"
        var lines = Sales.Select(m => m + " [SQLSTATE 01000]").ToArray();
        var at = lines[^1].IndexOf("[SQLSTATE", StringComparison.Ordinal) + cut;
        string[] folded = [.. lines[..^1], lines[^1][..at], lines[^1][at..]];

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(string.Join("\r\n", folded) + "\r\n"), "step.txt");

        // Then
        run.AssertInvariants($"cut after {cut}");
        Assert.Equal(0, run.ExitCode);
        Assert.Empty(run.Problems);
        Assert.Equal(1.953, Assert.Single(run.Operations).ThroughputMBps);
    }
}
