using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Formats;
using BackupXe.Sources.HeaderOnly;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.HeaderOnly;

/// <summary>RESTORE HEADERONLY saved as text, read as backup history: the real S07 row and variants of it.</summary>
public sealed class RestoreHeaderOnlyReaderTests
{
    private const string S07 = "S07_bobsql_sql2022_s3_restore_headeronly.tsv";

    [Fact]
    public async Task S07_is_a_6_second_uncompressed_backup_to_a_URL_too_short_to_rank_at_one_second_resolution()
    {
        // Given / When: the real RESTORE HEADERONLY row of a SQL Server 2022 backup to S3
        var file = await HistoryFileRead.ReadAsync(RealWorld.Path(S07), CancellationToken.None);

        // Then: 17:10:51 to 17:10:57, 519,838,720 bytes, BackupSize = CompressedBackupSize, DeviceType 9
        Assert.Equal("restore-headeronly", file.Format);
        Assert.Empty(file.Problems);
        var backup = Assert.Single(file.Records);
        Assert.Equal(OperationKind.Backup, backup.Kind);
        Assert.Equal(OperationScope.Database, backup.Scope);
        Assert.Equal("WideWorldImporters", backup.Database);
        Assert.Equal(new DateTime(2022, 8, 4, 17, 10, 51), backup.Start);
        Assert.Equal(new DateTime(2022, 8, 4, 17, 10, 57), backup.End);
        Assert.Equal(1, backup.TimeResolutionSeconds);
        Assert.Equal(519_838_720, backup.BytesRead);
        // SoftwareVersionMajor, Minor and Build of the header: the server that wrote the backup
        Assert.Equal("16.0.700", backup.ServerBuild);
        Assert.Equal(519_838_720, backup.BytesWritten);
        Assert.False(backup.Options.Compression);
        Assert.False(backup.Options.CopyOnly);
        Assert.Equal(new BackupDevice(DeviceKind.Url, null), Assert.Single(backup.Devices));
        Assert.Equal([HistorySource.BackupHeader], backup.Sources);
        Assert.Equal(6, backup.DurationSeconds);

        // 6 s at a 1-second resolution is under 10 times the resolution: its MB/s is not ranked
        Assert.Equal("too-short", SeriesStatistics.Unranked(backup));
    }

    [Fact]
    public void Reports_a_row_it_cannot_read_at_its_line_and_reads_the_others()
    {
        // Given: the S07 header, its row with a damaged start date, then the row made a log backup to disk (BackupType 2, DeviceType 102)
        var lines = File.ReadAllLines(RealWorld.Path(S07));
        var damaged = lines[1].Replace("2022-08-04 17:10:51.000", "2022-08-04 17:1", StringComparison.Ordinal);
        var log = lines[1].Replace("\t1\tNULL\t0\t1\t9\t", "\t2\tNULL\t0\t1\t102\t", StringComparison.Ordinal);
        var text = string.Join("\r\n", lines[0], damaged, log);

        // When
        var reader = new RestoreHeaderOnlyReader();
        var records = reader.Read(new StringReader(text)).ToList();

        // Then
        var problem = Assert.Single(reader.Problems);
        Assert.Equal("line 2", problem.Location);
        var record = Assert.Single(records);
        Assert.Equal(OperationScope.Log, record.Scope);
        Assert.Equal(DeviceKind.Disk, Assert.Single(record.Devices).Kind);
    }

    [Theory]
    [InlineData("NO_Encryption", "NULL", false)]
    [InlineData("aes_256", "0x8A1B2C", true)]
    [InlineData("NULL", "NULL", null)]
    public void Given_the_KeyAlgorithm_of_a_header_row_When_read_Then_NO_Encryption_is_not_encrypted(string keyAlgorithm, string thumbprint, bool? encrypted)
    {
        // Given: the S07 row with KeyAlgorithm and EncryptorThumbprint set as the RESTORE HEADERONLY page defines them
        var lines = File.ReadAllLines(RealWorld.Path(S07));
        var header = lines[0].Split('\t');
        var cells = lines[1].Split('\t');
        cells[Array.IndexOf(header, "KeyAlgorithm")] = keyAlgorithm;
        cells[Array.IndexOf(header, "EncryptorThumbprint")] = thumbprint;

        // When
        var record = Assert.Single(new RestoreHeaderOnlyReader().Read(new StringReader(lines[0] + "\r\n" + string.Join('\t', cells))).ToList());

        // Then
        Assert.Equal(encrypted, record.Options.Encryption);
    }

    [Theory]
    [InlineData("0", false)]
    [InlineData("1", true)]
    public void Given_the_IsSnapshot_of_a_header_row_When_read_Then_a_snapshot_backup_is_marked_and_never_ranked(string isSnapshot, bool snapshot)
    {
        // Given: the S07 row (IsSnapshot 0 as printed) and the same row with IsSnapshot 1 (RESTORE HEADERONLY: a snapshot backup)
        var lines = File.ReadAllLines(RealWorld.Path(S07));
        var header = lines[0].Split('\t');
        var cells = lines[1].Split('\t');
        Assert.Equal("0", cells[Array.IndexOf(header, "IsSnapshot")]);
        cells[Array.IndexOf(header, "IsSnapshot")] = isSnapshot;

        // When
        var record = Assert.Single(new RestoreHeaderOnlyReader().Read(new StringReader(lines[0] + "\r\n" + string.Join('\t', cells))).ToList());

        // Then
        Assert.Equal(snapshot, record.Snapshot);
        Assert.Equal(snapshot ? "snapshot" : "too-short", SeriesStatistics.Unranked(record));
    }

    [Fact]
    public void Is_recognised_by_its_header_row_only()
    {
        Assert.True(RestoreHeaderOnlyReader.Recognise(TextOf(File.ReadAllText(RealWorld.Path(S07)))));
        Assert.False(RestoreHeaderOnlyReader.Recognise(TextOf("BackupName\tBackupType\r\nx\t1\r\n")));
        Assert.False(RestoreHeaderOnlyReader.Recognise(TextOf("10 percent processed.\r\n")));
    }

    [Fact]
    public async Task S07_keeps_its_lsns_recovery_model_and_the_database_ids_of_its_header()
    {
        // Given / When: the real row (FirstLSN 626000002505600002 ... BindingID, FamilyGUID, RecoveryModel FULL)
        var file = await HistoryFileRead.ReadAsync(RealWorld.Path(S07), CancellationToken.None);

        // Then
        var backup = Assert.Single(file.Records);
        Assert.Equal(new BackupLsns(626000002505600002m, 627000001042400001m, 627000001012800001m, 627000001040000001m), backup.Lsns);
        Assert.Equal("FULL", backup.RecoveryModel);
        Assert.Equal(new DatabaseIdentity(Guid.Parse("1cc0a00a-1361-463f-b195-df7642a9754e"), Guid.Parse("e373cfd3-775b-489e-a3ad-9dd737e1c86a"), null), backup.Identity);
    }

    [Fact]
    public void A_first_lsn_past_its_last_is_said_at_its_line_and_the_backup_kept_without_lsns()
    {
        // Given: S07's row with FirstLSN and LastLSN swapped
        var lines = File.ReadAllLines(RealWorld.Path(S07));
        var swapped = lines[1].Replace("626000002505600002\t627000001042400001", "627000001042400001\t626000002505600002", StringComparison.Ordinal);
        Assert.NotEqual(lines[1], swapped);

        // When
        var reader = new RestoreHeaderOnlyReader();
        var backup = Assert.Single(reader.Read(new StringReader(lines[0] + "\n" + swapped)).ToList());

        // Then
        Assert.Null(backup.Lsns);
        Assert.Equal("FULL", backup.RecoveryModel);
        var problem = Assert.Single(reader.Problems);
        Assert.Equal("line 2", problem.Location);
        Assert.Contains("first LSN 627000001042400001 is past last LSN 626000002505600002", problem.Message, StringComparison.Ordinal);
    }

    private static TextPrefix TextOf(string text) => new(System.Text.Encoding.UTF8, text);
}
