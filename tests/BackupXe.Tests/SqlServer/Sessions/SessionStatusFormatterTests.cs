using BackupXe.SqlServer;
using BackupXe.SqlServer.Sessions;
using Xunit;

namespace BackupXe.Tests.SqlServer.Sessions;

public sealed class SessionStatusFormatterTests
{
    public sealed class Format
    {
        [Fact]
        public void A_missing_session_says_how_to_install_it()
        {
            var lines = SessionStatusFormatter.Format(SessionStatus.Missing("BackupXe"));

            Assert.Equal(
                [
                    "Session BackupXe: not installed.",
                    "  Run `backupxe session install --server ...`, or sessions/backupxe-session.sql yourself (needs ALTER ANY EVENT SESSION).",
                ],
                lines);
        }

        [Fact]
        public void A_running_session_shows_files_and_drop_counts()
        {
            var status = new SessionStatus(
                "BackupXe", Exists: true, Running: true, StartsWithServer: true, ["package0.event_file"],
                DroppedEventCount: 0, DroppedBufferCount: 0,
                ConfiguredFile: "BackupXe.xel", CurrentFile: @"C:\MSSQL\Log\BackupXe_0_133600000000000000.xel");

            var lines = SessionStatusFormatter.Format(status);

            Assert.Equal(
                [
                    "Session BackupXe: running.",
                    "  starts with server: yes",
                    "  targets: package0.event_file",
                    "  file: BackupXe.xel",
                    @"  writing: C:\MSSQL\Log\BackupXe_0_133600000000000000.xel",
                    "  dropped: 0 events, 0 buffers",
                ],
                lines);
        }

        [Fact]
        public void Dropped_events_come_with_a_warning()
        {
            var status = new SessionStatus(
                "BackupXe", true, true, true, ["package0.event_file"], 1200, 3, null, null);

            var lines = SessionStatusFormatter.Format(status);

            Assert.Contains("  dropped: 1200 events, 3 buffers", lines);
            Assert.Contains(lines, l => l.StartsWith("  warning: the server dropped events", StringComparison.Ordinal));
            Assert.True(status.LostEvents);
        }

        [Fact]
        public void A_stopped_session_shows_how_to_start_it()
        {
            var status = new SessionStatus("Nightly", true, false, false, [], null, null, "D:\\XE\\n.xel", null);

            var lines = SessionStatusFormatter.Format(status);

            Assert.Equal("Session Nightly: stopped.", lines[0]);
            Assert.Contains("  starts with server: no", lines);
            Assert.Contains("  targets: none", lines);
            Assert.Equal("  Start it: ALTER EVENT SESSION [Nightly] ON SERVER STATE = START;", lines[^1]);
        }
    }
}
