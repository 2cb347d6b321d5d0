using System.Globalization;
using System.Text;
using System.Xml.Linq;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Xel;
using BackupXe.Tests.Support;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// The capture session's cost as docs/performance.md states it ("The capture session's cost"), computed here from
/// what the repository holds, so the page cannot drift from its sources: bytes per event of each class from the
/// sample capture (XML, what sys.fn_xe_file_target_read_file returns) and from the same events written as .xel by the
/// writer proven on the genuine fixture; wait events per backup from the measured table of
/// docs/backup-internals.md; progress messages per backup from Microsoft's published trace flag 3014 sample.
/// </summary>
public sealed class SessionCostTests
{
    /// <summary>docs/backup-internals.md, "Buffer count against waits": test, seconds, BACKUPBUFFER n, BACKUPIO n (30 GB database, 8 cores).</summary>
    private static readonly (int Test, int Buffers, double Seconds, long BufferWaits, long IoWaits)[] Measured =
    [
        (1, 7, 122.5, 81_616, 22_815),
        (2, 16, 105.2, 14_513, 7_982),
        (3, 32, 99.5, 12_298, 8_679),
        (4, 128, 95.9, 8_292, 4_679),
        (5, 256, 95.9, 1_538, 1_135),
    ];

    [Fact]
    public void The_cost_table_in_performance_md_is_what_the_repository_data_gives()
    {
        var doc = File.ReadAllText(Path.Combine(Repository.Root, "docs", "performance.md"));
        var problems = ExpectedRows().Where(row => !doc.Contains(row, StringComparison.Ordinal)).ToList();
        Assert.True(problems.Count == 0, "docs/performance.md lacks these computed rows:\n" + string.Join('\n', ExpectedRows()));
    }

    private static IEnumerable<string> ExpectedRows()
    {
        var (xmlWait, xmlProgress) = XmlBytesPerEvent();
        var (xelWait, xelProgress) = XelBytesPerEvent();
        var progressPerBackup = ProgressMessagesPerBackup();
        yield return Row("bytes per event, `wait_info` (XML / .xel)", $"{xmlWait:F0} / {xelWait:F0}");
        yield return Row("bytes per event, `backup_restore_progress_trace` (XML / .xel)", $"{xmlProgress:F0} / {xelProgress:F0}");
        yield return Row("progress messages in Microsoft's trace flag 3014 sample (1 file; it ends before the backup does)", progressPerBackup.ToString(CultureInfo.InvariantCulture));
        foreach (var m in Measured)
        {
            var waits = m.BufferWaits + m.IoWaits;
            var perMinute = waits / m.Seconds * 60;
            var xelMb = (waits * xelWait + progressPerBackup * xelProgress) / 1_048_576;
            yield return Row(
                $"test {m.Test}: BUFFERCOUNT {m.Buffers}, {m.Seconds.ToString(CultureInfo.InvariantCulture)} s",
                $"{waits:N0} wait events, {perMinute:N0} per minute, {xelMb:F1} MB of .xel per backup");
        }
    }

    private static string Row(string what, string value) => string.Create(CultureInfo.InvariantCulture, $"| {what} | {value} |");

    /// <summary>Mean length of an &lt;event&gt; element of each class in the sample capture, in UTF-8 bytes.</summary>
    private static (double Wait, double Progress) XmlBytesPerEvent()
    {
        var events = XDocument.Load(CliRun.Sample("buffer-starved-backup.xml")).Root!.Elements("event").ToList();
        double Mean(string name) => events.Where(e => (string?)e.Attribute("name") == name)
            .Average(e => Encoding.UTF8.GetByteCount(e.ToString(SaveOptions.DisableFormatting)));
        return (Mean("wait_info"), Mean("backup_restore_progress_trace"));
    }

    /// <summary>
    /// What each event adds to a .xel: the file of N events of one class less the file of none, over N. The class's
    /// events are repeated to at least 5,000 so that the last, partly filled 64 KB buffer does not weigh on the mean.
    /// </summary>
    private static (double Wait, double Progress) XelBytesPerEvent()
    {
        var events = BuiltBackupScenario.BufferStarved();
        var empty = XelTestWriter.File(BuiltBackupCatalogue.Create(), []).Length;
        double PerEvent(string name)
        {
            var one = events.Where(e => e.Name == name).ToList();
            var some = Enumerable.Repeat(one, (5_000 / one.Count) + 1).SelectMany(e => e).ToList();
            return (XelTestWriter.File(BuiltBackupCatalogue.Create(), some).Length - empty) / (double)some.Count;
        }

        return (PerEvent("wait_info"), PerEvent("backup_restore_progress_trace"));
    }

    private static int ProgressMessagesPerBackup()
    {
        var path = Path.Combine(Repository.Root, "tests", "BackupXe.Tests", "Fixtures", "errorlog", "tf3014-backup-sql2014.log");
        return File.ReadAllLines(path, Encoding.Unicode).Count(line => line.Contains("Backup(backuptest):", StringComparison.Ordinal));
    }
}
