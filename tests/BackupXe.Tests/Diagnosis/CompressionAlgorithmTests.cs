using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// A compression-cpu verdict names the algorithms the input's server offers: ZSTD with its published figures on SQL
/// Server 2025, Intel QAT offload on 2022, nothing beyond MS_XPRESS on older or unknown servers (docs/diagnosis.md,
/// "Compression algorithms").
/// </summary>
public sealed class CompressionAlgorithmTests
{
    private static readonly BackupDiagnostician Diagnostician = new();

    // Signal time 70 s of 215 s of waits with compression on: compression-cpu (BottleneckRulesTests.CompressionCpu).
    private static OperationReport CompressionBound(ServerVersion? server) => Backup(
        Wait("BACKUPBUFFER", 3000, 150000, signalMs: 10000),
        Wait("BACKUPIO", 500, 5000),
        Wait("SOS_SCHEDULER_YIELD", 90000, 60000, signalMs: 60000)) with
    {
        Options = new OptionsReport(null, Compression: true, null),
        Server = server,
    };

    private static Recommendation? Algorithm(OperationReport operation)
    {
        var diagnosis = Diagnostician.Diagnose(operation);
        Assert.Equal(Bottleneck.CompressionCpu, diagnosis.Verdict.Bottleneck);
        return diagnosis.Recommendations.SingleOrDefault(r => r.Id == "compression-algorithm");
    }

    [Fact]
    public void On_sql_server_2025_it_names_zstd_with_the_published_figures_and_the_file_size_cost()
    {
        // When
        var remedy = Algorithm(CompressionBound(ServerVersion.FromBuild("17.0.1000.7", "the ERRORLOG's version banner, line 1")));

        // Then
        Assert.NotNull(remedy);
        Assert.Contains("ZSTD", remedy.Text, StringComparison.Ordinal);
        Assert.Contains("1.7x to 2.0x", remedy.Text, StringComparison.Ordinal);
        Assert.Contains("22% more", remedy.Text, StringComparison.Ordinal);
        Assert.Contains("no compression can be the fastest", remedy.Text, StringComparison.Ordinal);
        Assert.Contains("docs/backup-internals.md, 'ZSTD against MS_XPRESS'", remedy.Text, StringComparison.Ordinal);
        Assert.Contains("COMPRESSION (ALGORITHM = ZSTD, LEVEL = LOW)", remedy.Tsql, StringComparison.Ordinal);
        Assert.Contains("COMPRESSION (ALGORITHM = MS_XPRESS)", remedy.Tsql, StringComparison.Ordinal);
        Assert.Equal(GainBasis.Published, remedy.ExpectedGain.Basis);
    }

    [Fact]
    public void On_sql_server_2022_it_names_qat_and_the_configuration_it_needs()
    {
        var remedy = Algorithm(CompressionBound(ServerVersion.FromBuild("16.0.4225.2", "banner")));

        Assert.NotNull(remedy);
        Assert.Contains("QAT_DEFLATE", remedy.Tsql, StringComparison.Ordinal);
        Assert.Contains("hardware offload enabled", remedy.Tsql, StringComparison.Ordinal);
        Assert.Equal(GainBasis.CannotTell, remedy.ExpectedGain.Basis);
    }

    [Fact]
    public void On_an_older_or_unknown_server_there_is_no_algorithm_to_name()
    {
        Assert.Null(Algorithm(CompressionBound(ServerVersion.FromBuild("15.0.4223.1", "banner"))));
        Assert.Null(Algorithm(CompressionBound(null)));
    }
}
