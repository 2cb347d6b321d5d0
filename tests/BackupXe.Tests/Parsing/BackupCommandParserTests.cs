using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using Xunit;

namespace BackupXe.Tests.Parsing;

public sealed class BackupCommandParserTests
{
    [Fact]
    public void Reads_the_options_of_a_striped_compressed_backup_as_DatabaseBackup_writes_it()
    {
        // Given: the shape of a DatabaseBackup command (@NumberOfFiles = 2, @BufferCount, @MaxTransferSize)
        const string sql = "BACKUP DATABASE [Sales] TO DISK = N'X:\\Backup\\PROD01\\Sales\\FULL\\PROD01_Sales_FULL_20240501_010000_1.bak', "
            + "DISK = N'Y:\\Backup\\PROD01\\Sales\\FULL\\PROD01_Sales_FULL_20240501_010000_2.bak' "
            + "WITH CHECKSUM, COMPRESSION, BUFFERCOUNT = 50, MAXTRANSFERSIZE = 4194304, BLOCKSIZE = 65536";

        // When
        var command = BackupCommandParser.Parse(sql)!;

        // Then
        Assert.Equal(OperationKind.Backup, command.Kind);
        Assert.Equal(OperationScope.Database, command.Scope);
        Assert.Equal("Sales", command.Database);
        Assert.Equal(2, command.StripeCount);
        Assert.All(command.Devices, d => Assert.Equal(DeviceKind.Disk, d.Kind));
        Assert.EndsWith("_2.bak", command.Devices[1].Path);
        Assert.Equal(50, command.BufferCount);
        Assert.Equal(4194304, command.MaxTransferSizeBytes);
        Assert.Equal(65536, command.BlockSizeBytes);
        Assert.True(command.Compression);
        Assert.True(command.Checksum);
        Assert.False(command.CopyOnly);
    }

    [Fact]
    public void Tolerates_comments_case_doubled_quotes_and_brackets()
    {
        const string sql = """
            -- nightly copy /* not a block */
            /* outer /* nested */ still comment BACKUP LOG [Nope] */
            backup database [O'Brien]]s DB] to disk = n'D:\bak\O''Brien,s.bak' -- the path has a comma
            with copy_only, /* inline */ NO_COMPRESSION, stats = 5, description = N'a, b', NO_CHECKSUM;
            """;

        var command = BackupCommandParser.Parse(sql)!;

        Assert.Equal("O'Brien]s DB", command.Database);
        Assert.Equal(@"D:\bak\O'Brien,s.bak", Assert.Single(command.Devices).Path);
        Assert.True(command.CopyOnly);
        Assert.False(command.Compression);
        Assert.False(command.Checksum);
    }

    [Fact]
    public void Names_options_given_by_variables_without_inventing_their_values()
    {
        const string sql = "BACKUP DATABASE @db TO DISK = @file WITH BUFFERCOUNT = @buffers, MAXTRANSFERSIZE = 1048576";

        var command = BackupCommandParser.Parse(sql)!;

        Assert.Null(command.Database);
        Assert.Null(Assert.Single(command.Devices).Path);
        Assert.Null(command.BufferCount);
        Assert.Equal(["BUFFERCOUNT"], command.VariableOptions);
        Assert.Equal(1048576, command.MaxTransferSizeBytes);
    }

    [Fact]
    public void Reads_differential_log_url_encryption_and_the_2022_compression_algorithm()
    {
        var differential = BackupCommandParser.Parse("BACKUP DATABASE [Sales] TO URL = N'https://acct.blob.core.windows.net/c/s.bak' WITH DIFFERENTIAL, COMPRESSION (ALGORITHM = QAT_DEFLATE)")!;
        var log = BackupCommandParser.Parse("BACKUP LOG [Sales] TO URL = N's3://bucket.example/s_1.trn', URL = N's3://bucket.example/s_2.trn' WITH ENCRYPTION (ALGORITHM = AES_256, SERVER CERTIFICATE = [BackupCert]), CHECKSUM")!;

        Assert.Equal(OperationScope.Differential, differential.Scope);
        Assert.Equal(DeviceKind.Url, Assert.Single(differential.Devices).Kind);
        Assert.Equal("QAT_DEFLATE", differential.CompressionAlgorithm);
        Assert.Equal(OperationScope.Log, log.Scope);
        Assert.Equal(2, log.StripeCount);
        Assert.True(log.Encryption);
        Assert.Equal("AES_256", log.EncryptionAlgorithm);
        Assert.True(log.Checksum);
    }

    [Fact]
    public void Reads_a_restore_and_marks_verifyonly_as_not_a_restore()
    {
        var restore = BackupCommandParser.Parse("RESTORE DATABASE [Sales_copy] FROM DISK = N'D:\\s.bak' WITH MOVE N'Sales' TO N'E:\\s.mdf', REPLACE, BUFFERCOUNT = 20, STATS = 10")!;
        var verify = BackupCommandParser.Parse("RESTORE VERIFYONLY FROM DISK = N'D:\\s.bak' WITH CHECKSUM")!;

        Assert.Equal(OperationKind.Restore, restore.Kind);
        Assert.Equal("Sales_copy", restore.Database);
        Assert.Equal(20, restore.BufferCount);
        Assert.True(verify.IsVerifyOnly);
    }

    [Fact]
    public void Finds_the_backup_after_an_execute_as_prefix_and_keeps_mirrors_apart_from_stripes()
    {
        const string sql = "EXECUTE AS USER = 'dbo'; BACKUP DATABASE [Sales] TO DISK = N'A.bak' MIRROR TO DISK = N'B.bak' WITH FORMAT, COMPRESSION; REVERT;";

        var command = BackupCommandParser.Parse(sql)!;

        Assert.Equal(1, command.StripeCount);
        Assert.True(command.Devices[1].IsMirror);
        Assert.True(command.Compression);
    }

    [Theory]
    [InlineData("DECLARE @ReturnCode int EXECUTE @ReturnCode = dbo.xp_create_subdir N'X:\\Backup' IF @ReturnCode <> 0 RAISERROR('Error',16,1)")]
    [InlineData("DBCC CHECKDB ([Sales])")]
    [InlineData("BACKUP DATABASE [Sales] TO DISK = N'unterminated")]
    [InlineData("")]
    public void Returns_nothing_or_a_partial_command_for_other_or_cut_text_without_throwing(string sql)
    {
        var command = BackupCommandParser.Parse(sql);

        Assert.True(command is null || command.Devices.All(d => d.Path is null));
    }

    [Fact]
    public void Ignores_an_option_value_out_of_range()
    {
        var command = BackupCommandParser.Parse("BACKUP DATABASE [d] TO DISK = N'x' WITH BUFFERCOUNT = 99999999999999999999, MAXTRANSFERSIZE = 0")!;

        Assert.Null(command.BufferCount);
        Assert.Null(command.MaxTransferSizeBytes);
    }

    [Theory]
    [InlineData("MAXTRANSFERSIZE = 1e30", "MAXTRANSFERSIZE = 1e30: a float constant, not the integer SQL Server takes for MAXTRANSFERSIZE; ignored")]
    [InlineData("MAXTRANSFERSIZE = 4194304.5", "MAXTRANSFERSIZE = 4194304.5: a decimal constant, not the integer SQL Server takes for MAXTRANSFERSIZE; ignored")]
    [InlineData("MAXTRANSFERSIZE = 0x400000", "MAXTRANSFERSIZE = 0x400000: a binary constant, not the integer SQL Server takes for MAXTRANSFERSIZE; ignored")]
    [InlineData("MAXTRANSFERSIZE = 8388608", "MAXTRANSFERSIZE = 8388608: MAXTRANSFERSIZE is a multiple of 65536 bytes from 65536 to 4194304; ignored")]
    [InlineData("MAXTRANSFERSIZE = 100000", "MAXTRANSFERSIZE = 100000: MAXTRANSFERSIZE is a multiple of 65536 bytes from 65536 to 4194304; ignored")]
    [InlineData("BUFFERCOUNT = 0", "BUFFERCOUNT = 0: BUFFERCOUNT is a number of buffers, from 1 to 1073741824; ignored")]
    [InlineData("BUFFERCOUNT = -5", "BUFFERCOUNT = -: not a positive integer; ignored")]
    [InlineData("BUFFERCOUNT = 99999999999", "BUFFERCOUNT = 99999999999: beyond an int (2147483647), which SQL Server does not take; ignored")]
    [InlineData("BLOCKSIZE = 3000", "BLOCKSIZE = 3000: BLOCKSIZE is 512, 1024, 2048, 4096, 8192, 16384, 32768 or 65536 bytes; ignored")]
    [InlineData("BLOCKSIZE = 131072", "BLOCKSIZE = 131072: BLOCKSIZE is 512, 1024, 2048, 4096, 8192, 16384, 32768 or 65536 bytes; ignored")]
    public void A_value_SQL_Server_would_not_take_is_a_problem_and_not_read(string option, string problem)
    {
        // When
        var command = BackupCommandParser.Parse($"BACKUP DATABASE [Sales] TO DISK = N'X:\\S.bak' WITH CHECKSUM, {option}, COMPRESSION")!;

        // Then the value is not used, the option after it still is
        Assert.Equal(problem, Assert.Single(command.Problems));
        Assert.Null(command.MaxTransferSizeBytes);
        Assert.Null(command.BufferCount);
        Assert.Null(command.BlockSizeBytes);
        Assert.True(command.Compression);
    }

    [Fact]
    public void A_repeated_option_is_a_problem_and_the_first_value_stands()
    {
        var command = BackupCommandParser.Parse("BACKUP DATABASE [Sales] TO DISK = N'X:\\S.bak' WITH BUFFERCOUNT = 7, MAXTRANSFERSIZE = 1048576, BUFFERCOUNT = 500")!;

        Assert.Equal("BUFFERCOUNT is given twice; SQL Server refuses a statement that repeats an option, so only the first is read", Assert.Single(command.Problems));
        Assert.Equal(7, command.BufferCount);
        Assert.Equal(1048576, command.MaxTransferSizeBytes);
    }

    [Fact]
    public void The_values_the_backup_page_allows_are_read_without_a_problem()
    {
        var command = BackupCommandParser.Parse("RESTORE DATABASE [Sales] FROM DISK = N'X:\\S.bak' WITH MOVE 'a' TO 'b', MOVE 'c' TO 'd', BUFFERCOUNT = 1, MAXTRANSFERSIZE = 65536, BLOCKSIZE = 512")!;
        var s3 = BackupCommandParser.Parse("BACKUP DATABASE [Sales] TO URL = 's3://bucket.example/sales.bak' WITH MAXTRANSFERSIZE = 20971520")!;

        Assert.Empty(command.Problems);
        Assert.Equal((1, 65536L, 512), (command.BufferCount!.Value, command.MaxTransferSizeBytes!.Value, command.BlockSizeBytes!.Value));
        Assert.Empty(s3.Problems);
        Assert.Equal(20971520, s3.MaxTransferSizeBytes);
    }

    [Theory]
    [InlineData("BACKUP DATABASE [Sa", true)]
    [InlineData("BACKUP DATABASE [Sales] TO DISK = N'X:\\S", true)]
    [InlineData("BACKUP DATABASE [Sa]]les] TO DISK = N'X:\\O''Brien.bak'", false)]
    public void A_statement_cut_inside_a_quote_is_told(string sql, bool cut)
        => Assert.Equal(cut, BackupCommandParser.EndsInsideQuote(sql));
}
