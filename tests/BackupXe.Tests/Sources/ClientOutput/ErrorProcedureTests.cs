using BackupXe.Core.Events;
using BackupXe.Sources.ClientOutput;
using Xunit;

namespace BackupXe.Tests.Sources.ClientOutput;

/// <summary>The procedure a client's error header names, and the work its name tells (realworld4 V28).</summary>
public static class ErrorProcedureTests
{
    public class The_procedure_of_a_header
    {
        [Theory]
        [InlineData("Msg 924, Level 14, State 1, Procedure admindb.dbo.DatabaseBackup, Line 2894 [Batch Start Line 0]", "admindb.dbo.DatabaseBackup")]
        [InlineData("Msg 50000, Level 16, State 1, Procedure [master].[dbo].[DatabaseBackup], Line 3", "[master].[dbo].[DatabaseBackup]")]
        [InlineData("Msg 924, Level 14, State 1, Line 20", null)]
        [InlineData("Database 'SingleUser' is already open, Procedure X, and so on", null)]
        public void Is_read_from_a_Msg_header_only(string line, string? procedure)
        {
            Assert.Equal(procedure, ErrorProcedure.In(line));
        }

        [Theory]
        [InlineData("admindb.dbo.DatabaseBackup", OperationKind.Backup)]
        [InlineData("[master].[dbo].[DatabaseBackup]", OperationKind.Backup)]
        [InlineData("dbo.IndexOptimize", null)]
        [InlineData("dbo.DatabaseBackupReport", null)]
        public void Tells_a_backup_only_for_Olas_DatabaseBackup(string procedure, OperationKind? kind)
        {
            Assert.Equal(kind, ErrorProcedure.KindOf(procedure));
        }
    }
}
