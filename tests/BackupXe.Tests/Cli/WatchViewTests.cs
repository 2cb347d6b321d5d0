using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using Xunit;

namespace BackupXe.Tests.Cli;

public class WatchViewTests
{
    [Fact]
    public void Watch_view_forgets_an_operation_once_it_is_no_longer_running()
    {
        // Given
        var view = new WatchView(new StringWriter(), new ConsoleReportRenderer(color: false), databaseFilter: null, jsonLines: false);
        var start = new DateTime(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc);
        OperationProgress Running(int i) => new(OperationKind.Backup, OperationScope.Database, $"Db{i}", 50 + i, start.AddMinutes(i), TimeSpan.FromSeconds(5), 40, null, null, null, null, "copy-data", null);

        // When: a thousand operations run one after the other
        for (var i = 0; i < 1000; i++)
        {
            view.ShowProgress([Running(i)]);
        }

        // Then
        Assert.Equal(1, view.Remembered);
    }
}
