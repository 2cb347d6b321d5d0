using BackupXe.Tests.Hostile;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// The native build (<c>dotnet publish src/BackupXe.Cli -c Release -r linux-x64</c>, compiled ahead of time, with no
/// reflection serializer and only the code the compiler saw reachable) run as a user runs it, against the same
/// arguments run in process through the code every other test checks: the same exit code and the same bytes on both
/// streams. Every verb and input kind is here once, the SqlClient and SQLite paths included (the driver against the
/// TDS double on loopback). Runs when BACKUPXE_NATIVE_CLI names the executable, as .ci/run does after publishing it;
/// skipped, visibly, otherwise.
/// </summary>
public sealed partial class NativeBuildTests : IDisposable
{
    public const string Variable = "BACKUPXE_NATIVE_CLI";

    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-native-").FullName;

    public NativeBuildTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    public static TheoryData<string[]> FileRuns()
    {
        var errorlog = CliRun.Sample("log-zeroing-restore.log");
        var xml = CliRun.Sample("buffer-starved-backup.xml");
        var xel = Fixture("xel", "TestXel_0.xel");
        var runs = new TheoryData<string[]>();
        foreach (var format in new[] { "console", "markdown", "json", "html" })
        {
            runs.Add(["analyze", errorlog, "--format", format]);
            runs.Add(["analyze", xml, "--format", format]);
        }

        runs.Add(["analyze", xel, "--format", "json"]);
        runs.Add(["events", xel, "--format", "csv"]);
        runs.Add(["analyze", RealWorld.Path("S15_mssqltrek_2008r2_tf3014_backup.txt"), "--format", "json"]);
        runs.Add(["analyze", RealWorld.Path("S13_sqlworkday_2012_restore_stats_output.txt"), "--format", "markdown"]);
        runs.Add(["analyze", RealWorld.Path("S07_bobsql_sql2022_s3_restore_headeronly.tsv"), "--format", "json"]);
        runs.Add(["analyze", errorlog, xml, RealWorld.Path("S01_sqlsat_tf3213_1dev_default_compressed.txt"), "--format", "json"]);
        runs.Add(["watch", "--replay", xml, "--speed", "0", "--format", "json"]);
        runs.Add(["analyze", "/nonexistent/backupxe/ERRORLOG"]);
        runs.Add(["analyze", errorlog, "--no-such-option"]);
        runs.Add(["--help"]);
        return runs;
    }

    [Theory]
    [MemberData(nameof(FileRuns))]
    public async Task The_native_build_writes_what_the_tested_code_writes(string[] args)
    {
        var native = NativeExecutable();

        // When
        var expected = await CliRun.RunAsync(args);
        var actual = await RunNativeAsync(native, args);

        // Then
        AssertSame(expected, actual);
    }

    [Fact]
    public void The_native_build_has_nothing_of_the_daemon_beside_it()
    {
        // Given the folder the native executable was published or unpacked to
        var folder = Path.GetDirectoryName(Path.GetFullPath(NativeExecutable()))!;

        // When / Then
        Assert.DoesNotContain(CliOutputContentTests.DaemonOnlyFiles, name => File.Exists(Path.Combine(folder, name)));
    }

    [Fact]
    public async Task The_native_build_reads_a_binary_file_as_the_tested_code_does()
    {
        // Given: a file of bytes that are no input format, then the sample after it
        var native = NativeExecutable();
        var junk = Path.Combine(_folder, "junk.bin");
        await File.WriteAllBytesAsync(junk, Enumerable.Range(0, 4096).Select(i => (byte)(i * 31 % 256)).ToArray());
        string[] args = ["analyze", junk, CliRun.Sample("log-zeroing-restore.log"), "--format", "json"];

        // When
        var expected = await CliRun.RunAsync(args);
        var actual = await RunNativeAsync(native, args);

        // Then
        AssertSame(expected, actual);
    }

    [Fact]
    public async Task The_native_build_installs_checks_and_removes_the_session_through_sqlclient()
    {
        // Given: the real driver in each build, against a TDS double of its own on loopback
        var native = NativeExecutable();
        var (testedSql, nativeSql) = (new ScriptedSqlServer(), new ScriptedSqlServer());
        await using var testedServer = TdsServerDouble.Start(testedSql.Script);
        await using var nativeServer = TdsServerDouble.Start(nativeSql.Script);
        string[][] verbs = [["session", "install"], ["session", "status"], ["check", "--format", "json"], ["check"], ["session", "uninstall"], ["session", "status"]];

        foreach (var verb in verbs)
        {
            // When
            var expected = await CliRun.RunAsync([.. verb, .. TdsClient.CliArguments(testedServer)]);
            var actual = await RunNativeAsync(native, [.. verb, .. TdsClient.CliArguments(nativeServer)]);

            // Then: the same, but for the address each double listens on and for the start of check's 30 days, which each
            // run takes from its own clock (a minute apart when the two runs straddle one)
            AssertSame(WithoutSince(expected), WithoutSince(Replace(actual, nativeServer.Server, testedServer.Server)));
            Assert.DoesNotContain(TdsClient.Password, actual.Output + actual.Error, StringComparison.Ordinal);
        }

        Assert.Equal(testedServer.Requests.Select(r => r.Text), nativeServer.Requests.Select(r => r.Text));
        Assert.All(nativeServer.Logins, l => Assert.Equal("BackupXe", l.ApplicationName));
    }

    [Fact]
    public async Task The_native_build_imports_and_lists_history_in_sqlite()
    {
        // Given: an errorlog imported by the native build, then by the tested code into a second file
        var native = NativeExecutable();
        var input = RealWorld.Path("S15_mssqltrek_2008r2_tf3014_backup.txt");
        var nativeStore = Path.Combine(_folder, "native.db");
        var testedStore = Path.Combine(_folder, "tested.db");

        // When
        var nativeImport = await RunNativeAsync(native, ["history", "import", "--path", nativeStore, "--instance", "PROD01", input]);
        var testedImport = await CliRun.RunAsync("history", "import", "--path", testedStore, "--instance", "PROD01", input);

        // Then: the same import, and each build lists the other's file as its own
        Assert.True(nativeImport.ExitCode == 0, nativeImport.Error);
        AssertSame(testedImport, Replace(nativeImport, nativeStore, testedStore));
        foreach (var format in new[] { "console", "json", "markdown", "csv", "html" })
        {
            AssertSame(await CliRun.RunAsync("history", "--path", nativeStore, "--format", format), await RunNativeAsync(native, ["history", "--path", nativeStore, "--format", format]));
        }
    }

    private static string NativeExecutable()
    {
        var path = Environment.GetEnvironmentVariable(Variable);
        if (string.IsNullOrEmpty(path))
        {
            Skipped.Because($"{Variable} is not set: no native build to compare", $".ci/run publishes one and sets it; or publish with dotnet publish src/BackupXe.Cli -c Release -r linux-x64 and set {Variable} to the executable (docs/development.md)");
        }

        Assert.True(File.Exists(path), $"{Variable} names {path}, which does not exist");
        return path;
    }

    private static CliRun WithoutSince(CliRun run) => run with
    {
        Output = SinceStamp().Replace(run.Output, "${since}<since>"),
        Error = SinceStamp().Replace(run.Error, "${since}<since>"),
    };

    [System.Text.RegularExpressions.GeneratedRegex(@"(?<since>since\W{0,4})\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?")]
    private static partial System.Text.RegularExpressions.Regex SinceStamp();

    private static CliRun Replace(CliRun run, string text, string with) => run with
    {
        Output = run.Output.Replace(text, with, StringComparison.Ordinal),
        Error = run.Error.Replace(text, with, StringComparison.Ordinal),
    };

    private static void AssertSame(CliRun expected, CliRun actual)
    {
        // In process the program is named after the test host; usage lines say so.
        expected = Replace(expected, "  BackupXe.Tests ", "  backupxe ");
        Assert.Equal(expected.Output, actual.Output);
        Assert.Equal(expected.Error, actual.Error);
        Assert.Equal(expected.ExitCode, actual.ExitCode);
    }

    private static string Fixture(string folder, string file) => Path.Combine(AppContext.BaseDirectory, "Fixtures", folder, file);

    private static async Task<CliRun> RunNativeAsync(string executable, string[] args)
    {
        var run = await ChildProcess.RunExecutableAsync(executable, TimeSpan.FromMinutes(1), args);
        return new CliRun(run.ExitCode, run.Output, run.Error);
    }
}
