using BackupXe.Core.Diagnosis;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.Diagnosis;

public class BackupDiagnosticianTests
{
    public class Construction
    {
        [Fact]
        public void Out_of_range_settings_fail_with_a_message_naming_the_setting()
        {
            // Given
            var settings = new DiagnosisSettings { DeviceWaitShare = 1.5, MemoryBudgetBytes = 0 };

            // When
            var error = Assert.Throws<ArgumentException>(() => new BackupDiagnostician(settings));

            // Then
            Assert.Contains(nameof(DiagnosisSettings.DeviceWaitShare), error.Message);
            Assert.Contains(nameof(DiagnosisSettings.MemoryBudgetBytes), error.Message);
        }

        [Fact]
        public void The_defaults_are_valid()
        {
            Assert.Empty(new DiagnosisSettings().Validate());
        }
    }

    public class Apply
    {
        [Fact]
        public void Fills_verdict_and_recommendations_and_ignores_earlier_ones()
        {
            // Given
            var operation = PublishedBufferTest(1) with
            {
                Verdict = new Verdict(Bottleneck.None, Confidence.High, []),
            };

            // When
            var diagnosed = new BackupDiagnostician().Apply(operation);

            // Then
            Assert.Equal(Bottleneck.BufferStarved, diagnosed.Verdict!.Bottleneck);
            Assert.Contains(diagnosed.Recommendations, r => r.Id == RecommendationIds.RaiseBuffers);
        }
    }

    public class Thresholds
    {
        [Fact]
        public void A_stricter_device_share_turns_a_device_bound_backup_into_a_low_confidence_call()
        {
            // Given: published test 5, BACKUPIO 51% of the writer's time
            var operation = PublishedBufferTest(5);
            var settings = new DiagnosisSettings { DeviceWaitShare = 0.6 };

            // When
            var diagnosis = new BackupDiagnostician(settings).Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Low, diagnosis.Verdict.Confidence);
        }
    }
}
