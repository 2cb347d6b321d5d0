using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live;

public sealed class ReconnectBackoffTests
{
    private static readonly LiveSourceOptions Options = new()
    {
        InitialReconnectDelay = TimeSpan.FromSeconds(1),
        MaxReconnectDelay = TimeSpan.FromSeconds(60),
        BackoffMultiplier = 2,
        JitterRatio = 0.25,
    };

    public sealed class Ceiling
    {
        [Theory]
        [InlineData(1, 1)]
        [InlineData(2, 2)]
        [InlineData(3, 4)]
        [InlineData(6, 32)]
        [InlineData(7, 60)]
        [InlineData(1000, 60)]
        public void Grows_by_the_multiplier_up_to_the_cap(int attempt, int seconds)
        {
            Assert.Equal(TimeSpan.FromSeconds(seconds), new ReconnectBackoff(Options).Ceiling(attempt));
        }

        [Fact]
        public void Rejects_attempt_zero()
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => new ReconnectBackoff(Options).Ceiling(0));
        }
    }

    public sealed class DelayFor
    {
        [Fact]
        public void With_the_lowest_draw_is_the_ceiling()
        {
            Assert.Equal(TimeSpan.FromSeconds(4), new ReconnectBackoff(Options, new FixedJitter(0)).DelayFor(3));
        }

        [Fact]
        public void With_the_highest_draw_is_cut_by_the_jitter_ratio()
        {
            var delay = new ReconnectBackoff(Options, new FixedJitter(0.9999999)).DelayFor(3);

            Assert.InRange(delay, TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(3.000001));
        }

        [Fact]
        public void Always_stays_within_the_jitter_band_and_under_the_cap()
        {
            // Given a real random source, many draws
            var backoff = new ReconnectBackoff(Options, new Random(20240501));

            for (var attempt = 1; attempt <= 12; attempt++)
            {
                var ceiling = backoff.Ceiling(attempt);
                for (var draw = 0; draw < 200; draw++)
                {
                    // Then every delay lies in [ceiling x (1 - ratio), ceiling]
                    Assert.InRange(backoff.DelayFor(attempt), ceiling * (1 - Options.JitterRatio), ceiling);
                }
            }
        }
    }
}

public sealed class LiveSourceOptionsTests
{
    public sealed class Validate
    {
        [Fact]
        public void Accepts_the_defaults()
        {
            Assert.Empty(new LiveSourceOptions().Validate());
        }

        [Fact]
        public void Defaults_are_the_documented_ones()
        {
            var options = new LiveSourceOptions();

            Assert.Equal(LiveSourceOptionsDefaults.ChannelCapacity, options.ChannelCapacity);
            Assert.Equal(LiveSourceOptionsDefaults.InitialReconnectDelay, options.InitialReconnectDelay);
            Assert.Equal(LiveSourceOptionsDefaults.MaxReconnectDelay, options.MaxReconnectDelay);
            Assert.Equal(LiveSourceOptionsDefaults.BackoffMultiplier, options.BackoffMultiplier);
            Assert.Equal(LiveSourceOptionsDefaults.JitterRatio, options.JitterRatio);
            Assert.False(options.RecreateSession);
            Assert.Null(options.MaxReconnectAttempts);
        }

        public static TheoryData<LiveSourceOptions, string> Invalid => new()
        {
            { new LiveSourceOptions { ChannelCapacity = 0 }, "ChannelCapacity" },
            { new LiveSourceOptions { InitialReconnectDelay = TimeSpan.FromSeconds(-1) }, "InitialReconnectDelay" },
            { new LiveSourceOptions { MaxReconnectDelay = TimeSpan.FromMilliseconds(10) }, "MaxReconnectDelay" },
            { new LiveSourceOptions { BackoffMultiplier = 0.5 }, "BackoffMultiplier" },
            { new LiveSourceOptions { BackoffMultiplier = double.NaN }, "BackoffMultiplier" },
            { new LiveSourceOptions { JitterRatio = 1.5 }, "JitterRatio" },
            { new LiveSourceOptions { MaxReconnectAttempts = -1 }, "MaxReconnectAttempts" },
            { new LiveSourceOptions { SessionName = "no line\nbreaks" }, "SessionName" },
        };

        [Theory]
        [MemberData(nameof(Invalid))]
        public void Names_the_setting_that_is_wrong(LiveSourceOptions options, string setting)
        {
            var problem = Assert.Single(options.Validate());

            Assert.StartsWith(setting, problem);
        }
    }
}
