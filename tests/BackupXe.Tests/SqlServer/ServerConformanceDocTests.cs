using System.Reflection;
using System.Text.RegularExpressions;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Msdb;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// docs/server-conformance.md against the code: every statement BackupXe sends (the SQL resources, every T-SQL
/// constant and query builder of the server-facing assemblies) and every error number it classifies has a row that
/// names the Microsoft page it rests on. A new query without a row fails here.
/// </summary>
public sealed partial class ServerConformanceDocTests
{
    private static readonly string RepositoryRoot = Repository.Root;

    private static readonly IReadOnlyList<string> Rows = File.ReadAllLines(Path.Combine(RepositoryRoot, "docs", "server-conformance.md"))
        .Where(line => line.StartsWith("| ", StringComparison.Ordinal))
        .ToList();

    private static readonly Assembly[] ServerFacing = [typeof(SessionScripts).Assembly, typeof(SqlServerHistoryStore).Assembly];

    /// <summary>Every statement the server-facing assemblies can send, by the name the document's rows use.</summary>
    public static TheoryData<string> Statements() => new(StatementNames());

    public static TheoryData<int> ErrorNumbers() => new(ClassifiedNumbers());

    private static SortedSet<string> StatementNames()
    {
        var names = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var resource in typeof(SessionScripts).Assembly.GetManifestResourceNames().Where(r => r.StartsWith("BackupXe.Sessions.", StringComparison.Ordinal)))
        {
            names.Add("sessions/" + resource["BackupXe.Sessions.".Length..]);
        }

        foreach (var type in ServerFacing.SelectMany(a => a.GetTypes()).Where(t => !t.Name.StartsWith("Sqlite", StringComparison.Ordinal)))
        {
            const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.DeclaredOnly;
            foreach (var field in type.GetFields(all).Where(f => f.IsLiteral && f.FieldType == typeof(string)))
            {
                if (field.GetRawConstantValue() is string text && IsStatement(text))
                {
                    names.Add($"{type.Name}.{field.Name}");
                }
            }

            foreach (var method in type.GetMethods(all).Where(m => m.ReturnType == typeof(string) && m.Name == "Query"))
            {
                names.Add($"{type.Name}.{method.Name}");
            }
        }

        return names;
    }

    /// <summary>Every error number SqlErrorNumbers names or lists.</summary>
    private static SortedSet<int> ClassifiedNumbers()
    {
        const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static;
        var numbers = new SortedSet<int>();
        foreach (var field in typeof(SqlErrorNumbers).GetFields(all))
        {
            if (field.IsLiteral && field.FieldType == typeof(int))
            {
                numbers.Add((int)field.GetRawConstantValue()!);
            }
            else if (field.GetValue(null) is IReadOnlySet<int> set)
            {
                numbers.UnionWith(set);
            }
        }

        return numbers;
    }

    [Fact]
    public void Given_the_code_When_its_statements_are_listed_Then_the_known_ones_are_found()
    {
        // The walk itself: a regex or reflection change that found nothing would pass every row check below.
        var found = StatementNames();

        Assert.Contains("sessions/backupxe-session.sql", found);
        Assert.Contains("SqlEventStreamReader.Query", found);
        Assert.Contains("MsdbBackupHistory.Query", found);
        Assert.Contains("SqlServerHistoryStore.Columns", found);
        Assert.Contains(25736, ClassifiedNumbers());
    }

    [Theory]
    [MemberData(nameof(Statements))]
    public void Given_a_statement_BackupXe_sends_When_the_conformance_doc_is_read_Then_a_row_names_it_with_a_Microsoft_page(string statement)
    {
        var row = Rows.FirstOrDefault(r => r.StartsWith($"| `{statement}` |", StringComparison.Ordinal));

        Assert.True(row is not null, $"docs/server-conformance.md has no row for `{statement}`");
        Assert.Contains("https://learn.microsoft.com/", row, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(ErrorNumbers))]
    public void Given_an_error_number_BackupXe_classifies_When_the_conformance_doc_is_read_Then_a_row_names_it_with_a_Microsoft_page(int number)
    {
        var text = number.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var row = Rows.FirstOrDefault(r => r.Split('|')[1].Split(',').Any(cell => cell.Trim() == text));

        Assert.True(row is not null, $"docs/server-conformance.md has no error row for {number}");
        Assert.Contains("https://learn.microsoft.com/", row, StringComparison.Ordinal);
    }

    // A permission name (ALTER ANY EVENT SESSION) starts like a statement too, but has no clause, end or second line.
    private static bool IsStatement(string text) => Statement().IsMatch(text)
        && (text.Contains(';', StringComparison.Ordinal) || text.Contains('\n', StringComparison.Ordinal) || text.Contains(" FROM ", StringComparison.Ordinal));

    // T-SQL begins with one of these keywords, in capitals as BackupXe writes it; message texts do not.
    [GeneratedRegex(@"^\s*(SELECT|INSERT|UPDATE|DELETE|MERGE|DBCC|EXEC|IF|DECLARE|SET|CREATE|ALTER|DROP|WITH)\b")]
    private static partial Regex Statement();
}
