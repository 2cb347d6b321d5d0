using BackupXe.Core.Correlation;
using Xunit;

namespace BackupXe.Tests.Correlation;

public sealed class BackupWaitTypesTests
{
    [Theory]
    [InlineData("XTP_RECOVERY", true)]
    [InlineData("WAIT_XTP_RECOVERY", true)]
    [InlineData("xtp_recovery", true)]
    [InlineData("Wait_Xtp_Recovery", true)]
    [InlineData("BACKUPBUFFER", false)]
    [InlineData("BACKUPIO", false)]
    [InlineData("XTP_RECOVERX", false)]
    [InlineData("WAIT_XTP_RECOVERZ", false)]
    [InlineData("XTP_RECOVERY_", false)]
    [InlineData("", false)]
    public void The_in_memory_load_wait_is_known_under_either_name_in_any_case_and_no_other(string waitType, bool load)
    {
        Assert.Equal(load, BackupWaitTypes.IsInMemoryLoad(waitType));
    }
}
