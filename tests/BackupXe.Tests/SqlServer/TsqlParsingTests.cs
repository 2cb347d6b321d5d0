using BackupXe.Core.Diagnosis;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Preflight;
using BackupXe.SqlServer.Requests;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;
using BackupXe.Tests.Cli;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// Every T-SQL text BackupXe emits goes through Microsoft's own parser (ScriptDom from DacFx 150.4897.1) for SQL
/// Server 2016, 2017 and 2019. That parser version does not know BACKUP ... TO URL, so a URL remedy could not be
/// checked here; none of the inputs below produces one.
/// </summary>
public class TsqlParsingTests
{
    public static TheoryData<string, string> EmittedScripts()
    {
        var data = new TheoryData<string, string>();
        foreach (var file in Directory.GetFiles(Path.Combine(Path.GetDirectoryName(CliRun.Sample("x"))!, "..", "sessions"), "*.sql"))
        {
            data.Add(Path.GetFileName(file), File.ReadAllText(file));
        }

        var odd = new CaptureSessionSettings("Nightly_2", @"D:\XE\O'Brien's backups.xel", 128, 10);
        data.Add("rendered install", SessionScripts.RenderInstall(odd));
        data.Add("rendered drop", SessionScripts.RenderDrop("Nightly_2"));
        data.Add("rendered status", SessionScripts.RenderStatus("Nightly_2"));
        data.Add("running requests", RunningRequestReader.Query);
        data.Add("tune facts", LiveTuningServer.FactsQuery);
        data.Add("tune running backups", LiveTuningServer.RunningQuery);
        foreach (var (query, index) in PreflightQueries.All.Select((q, i) => (q, i)))
        {
            data.Add($"preflight query {index}", query);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(EmittedScripts))]
    public void Session_scripts_and_check_queries_parse_for_2016_to_2019(string name, string script) => AssertParses(name, script);

    [Fact]
    public void Every_remedy_statement_parses_for_2016_to_2019()
    {
        // Given operations that between them draw every kind of BACKUP/RESTORE remedy
        var deviceBound = Backup(Wait("BACKUPBUFFER", 1000, 30000), Wait("BACKUPIO", 5000, 90000)) with { BufferConfig = Buffers(64, 4096) };
        var starvedStripes = Backup(Wait("BACKUPBUFFER", 200000, 400000), Wait("BACKUPIO", 20000, 30000)) with
        {
            BufferConfig = Buffers(7, 1024),
            Devices = [new DeviceReport(@"\\backup01\sql\O'Neil_1.bak"), new DeviceReport(@"\\backup01\sql\O'Neil_2.bak")],
            Database = "Sales]DB",
        };
        var readBound = Backup(Wait("BACKUPBUFFER", 3000, 150000), Wait("BACKUPIO", 500, 5000));
        var zeroing = Restore(Wait("PREEMPTIVE_OS_WRITEFILEGATHER", 3, 120000), Wait("BACKUPIO", 100, 1000));
        var unknown = Backup() with { Database = null, Devices = [] };
        OperationReport[] operations = [PublishedBufferTest(1), PublishedBufferTest(2), deviceBound, starvedStripes, readBound, zeroing, unknown];

        // When
        var remedies = operations
            .SelectMany(o => new BackupDiagnostician(new DiagnosisSettings()).Diagnose(o).Recommendations)
            .Where(r => !string.IsNullOrWhiteSpace(r.Tsql))
            .ToList();

        // Then
        Assert.True(remedies.Select(r => r.Id).Distinct().Count() >= 5, string.Join(", ", remedies.Select(r => r.Id).Distinct()));
        Assert.Contains(remedies, r => r.Tsql.Contains("RESTORE", StringComparison.Ordinal));
        Assert.DoesNotContain(remedies, r => r.Tsql.Contains("TO URL", StringComparison.OrdinalIgnoreCase));
        foreach (var remedy in remedies)
        {
            AssertParses(remedy.Id, remedy.Tsql);
        }
    }

    [Fact]
    public void The_parser_rejects_broken_tsql_so_the_checks_above_can_fail()
    {
        var errors = Parse(new TSql150Parser(true), "BACKUP DATABASE [Sales TO DISK = N'x.bak';");
        Assert.NotEmpty(errors);
    }

    private static void AssertParses(string name, string script)
    {
        foreach (TSqlParser parser in new TSqlParser[] { new TSql130Parser(true), new TSql140Parser(true), new TSql150Parser(true) })
        {
            var errors = Parse(parser, script);
            Assert.True(errors.Count == 0, $"{name} ({parser.GetType().Name}): " + string.Join("; ", errors.Select(e => $"line {e.Line}: {e.Message}")));
        }
    }

    private static IList<ParseError> Parse(TSqlParser parser, string script)
    {
        parser.Parse(new StringReader(script), out var errors);
        return errors;
    }
}
