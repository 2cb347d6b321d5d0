using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.XeXml;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources.XeXml;

public sealed class XeXmlEventSourceTests
{
    private const string T1 = "2024-05-01T10:00:01.123Z";
    private const string T2 = "2024-05-01T10:00:02.456Z";

    private static Task<SourceRun> ReadXmlAsync(string xml)
    {
        var bytes = Encoding.UTF8.GetBytes(xml);
        return SourceRun.ReadAsync(new XeXmlEventSource("test.xml", () => new MemoryStream(bytes)));
    }

    public sealed class Layouts
    {
        private static readonly string[] Events =
        [
            XeXmlEvents.Progress(T1, "BACKUP DATABASE started"),
            XeXmlEvents.Wait(T2, "BACKUPBUFFER", "End", 12, 1),
        ];

        public static TheoryData<string, string> Documents => new()
        {
            { "ring buffer", XeXmlEvents.RingBuffer(Events) },
            { "bare event_data rows", string.Join("\r\n", Events) },
            { "rows wrapped in any root", $"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Rows><row><event_data>{Events[0]}</event_data></row><row><event_data>{Events[1]}</event_data></row></Rows>" },
        };

        [Theory]
        [MemberData(nameof(Documents))]
        public async Task Give_the_same_events(string layout, string xml)
        {
            // Given the two events laid out as a {layout}
            _ = layout;

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.Empty(run.Status.Problems);
            Assert.Equal(2, run.Status.Events);
            Assert.Equal(
                [
                    new ProgressTraceEvent(
                        new DateTime(2024, 5, 1, 10, 0, 1, 123, DateTimeKind.Utc), 53, OperationKind.Backup, "backuptest", "BACKUP DATABASE started", 0),
                    new WaitEvent(new DateTime(2024, 5, 1, 10, 0, 2, 456, DateTimeKind.Utc), 53, "BACKUPBUFFER", 12, 1),
                ],
                run.Events);
        }
    }

    public sealed class ProgressTrace
    {
        [Fact]
        public async Task Keeps_a_cdata_message_verbatim_and_the_timestamp_in_utc()
        {
            // Given
            var xml = XeXmlEvents.Progress(T1, "Backup(backuptest): Zeroing D:\\x.ldf from page 1 to 64000 (0x2000 to 0x1f400000) <&>", "Restore");

            // When
            var only = Assert.IsType<ProgressTraceEvent>(Assert.Single((await ReadXmlAsync(xml)).Events));

            // Then
            Assert.Equal("Backup(backuptest): Zeroing D:\\x.ldf from page 1 to 64000 (0x2000 to 0x1f400000) <&>", only.Message);
            Assert.Equal(OperationKind.Restore, only.Kind);
            Assert.Equal(DateTimeKind.Utc, only.Timestamp.Kind);
        }

        [Fact]
        public async Task Takes_the_operation_from_its_key_when_the_map_text_is_absent()
        {
            // Given an operation_type with only <value>1</value>, and a plain-text message without CDATA
            const string xml = """
                <event name="backup_restore_progress_trace" package="sqlserver" timestamp="2024-05-01T10:00:01Z">
                  <data name="operation_type"><value>1</value></data>
                  <data name="trace_message"><value>RESTORE DATABASE started</value></data>
                </event>
                """;

            // When
            var only = Assert.IsType<ProgressTraceEvent>(Assert.Single((await ReadXmlAsync(xml)).Events));

            // Then
            Assert.Equal(OperationKind.Restore, only.Kind);
            Assert.Equal("RESTORE DATABASE started", only.Message);
            Assert.Null(only.SessionId);
            Assert.Null(only.DatabaseName);
            Assert.Null(only.TraceLevel);
        }
    }

    public sealed class Waits
    {
        [Fact]
        public async Task Skip_begin_opcodes_but_count_them()
        {
            // Given a Begin/End pair of the same wait
            var xml = XeXmlEvents.RingBuffer(
                XeXmlEvents.Wait(T1, "BACKUPIO", "Begin", 0),
                XeXmlEvents.Wait(T2, "BACKUPIO", "End", 1333, 2));

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            var wait = Assert.IsType<WaitEvent>(Assert.Single(run.Events));
            Assert.Equal(1333, wait.DurationMs);
            Assert.Equal(2, wait.SignalDurationMs);
            Assert.Equal(2, run.Status.Events);
        }

        [Fact]
        public async Task Mark_wait_info_external_as_preemptive()
        {
            // Given
            var xml = XeXmlEvents.Wait(T1, "PREEMPTIVE_OS_WRITEFILEGATHER", "End", 40000, name: "wait_info_external");

            // When
            var wait = Assert.IsType<WaitEvent>(Assert.Single((await ReadXmlAsync(xml)).Events));

            // Then
            Assert.True(wait.IsExternal);
            Assert.Equal("PREEMPTIVE_OS_WRITEFILEGATHER", wait.WaitType);
        }
    }

    public sealed class OtherEvents
    {
        [Theory]
        [InlineData("databases_backup_restore_throughput")]
        [InlineData("database_backup_restore_throughput")]
        public async Task Throughput_is_read_under_either_spelling(string name)
        {
            // Given
            var xml = $"""
                <event name="{name}" package="sqlserver" timestamp="{T1}">
                  <data name="database_id"><type name="uint32" package="package0"/><value>7</value></data>
                  <data name="count"><type name="uint64" package="package0"/><value>52428800</value></data>
                  <data name="increment"><type name="uint64" package="package0"/><value>1048576</value></data>
                </event>
                """;

            // When
            var only = Assert.Single((await ReadXmlAsync(xml)).Events);

            // Then
            Assert.Equal(new ThroughputEvent(new DateTime(2024, 5, 1, 10, 0, 1, 123, DateTimeKind.Utc), null, 7, 52428800, 1048576), only);
        }

        [Fact]
        public async Task An_unanalysed_event_is_kept_by_name_with_its_nested_fields_skipped()
        {
            // Given an rpc_completed whose fields hold nested XML
            var xml = $"""
                <event name="rpc_completed" package="sqlserver" timestamp="{T1}">
                  <data name="data_stream"><value><nested><deeper>x</deeper></nested></value></data>
                  <action name="session_id" package="sqlserver"><value>182</value></action>
                </event>
                """;

            // When
            var only = Assert.Single((await ReadXmlAsync(xml)).Events);

            // Then
            Assert.Equal(new OtherEvent(new DateTime(2024, 5, 1, 10, 0, 1, 123, DateTimeKind.Utc), 182, "rpc_completed"), only);
        }
    }

    public sealed class DamagedInput
    {
        [Fact]
        public async Task Truncated_xml_keeps_the_events_before_it_and_names_the_line()
        {
            // Given a ring buffer cut off in the middle of its third event (line 3 onward)
            var xml = "<RingBufferTarget>\n" + XeXmlEvents.Progress(T1, "first").ReplaceLineEndings(" ") + "\n" +
                      XeXmlEvents.Progress(T2, "second").ReplaceLineEndings(" ") + "\n" +
                      "<event name=\"wait_info\" timestamp=\"2024-05-01T10:00:03Z\"><data name=\"wait_ty";

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.Equal(["first", "second"], run.Progress.Select(e => e.Message));
            var problem = Assert.Single(run.Status.Problems);
            Assert.StartsWith("line 4, position ", problem.Location);
            Assert.False(run.Status.Unusable);
        }

        [Fact]
        public async Task Garbage_from_the_start_is_unusable()
        {
            // Given
            const string xml = "<<<not xml at all";

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.Empty(run.Events);
            Assert.True(run.Status.Unusable);
            Assert.StartsWith("line 1, position ", Assert.Single(run.Status.Problems).Location);
        }

        [Fact]
        public async Task An_event_missing_a_required_field_is_skipped_and_reading_goes_on()
        {
            // Given a wait_info without duration on line 2 between two good events
            var xml = string.Join(
                "\n",
                "<Rows>",
                $"<event name=\"wait_info\" timestamp=\"{T1}\"><data name=\"wait_type\"><value>1</value><text>BACKUPIO</text></data></event>",
                XeXmlEvents.Progress(T2, "after").ReplaceLineEndings(" "),
                $"<event name=\"backup_restore_progress_trace\" timestamp=\"not a time\"><data name=\"trace_message\"><value>x</value></data></event>",
                "</Rows>");

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.Equal("after", Assert.Single(run.Progress).Message);
            Assert.Equal(
                [
                    new InputProblem("line 2", "wait_info event has no duration; event skipped"),
                    new InputProblem("line 4", "backup_restore_progress_trace event has no valid timestamp attribute; event skipped"),
                ],
                run.Status.Problems);
        }

        [Fact]
        public async Task Well_formed_xml_without_events_is_unusable()
        {
            // Given an empty ring buffer
            const string xml = "<RingBufferTarget eventCount=\"0\"></RingBufferTarget>";

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.True(run.Status.Unusable);
            Assert.Contains("no Extended Events <event>", Assert.Single(run.Status.Problems).Message);
        }
    }

    public sealed class Values
    {
        [Fact]
        public async Task Every_value_is_read_whole_wherever_it_falls_in_the_readers_buffer()
        {
            // Given messages of every length up to 700 and around the 4,096-character chunk, some ending in a
            // surrogate pair, so that values start and end at every offset of the reader's internal buffer
            var lengths = Enumerable.Range(1, 700).Concat([4093, 4094, 4095, 4096, 4097, 8191, 8192, 8193]).ToList();
            var messages = lengths.Select((length, i) => i % 3 == 0 && length >= 2
                ? new string((char)('a' + (i % 26)), length - 2) + "\U0001F600"
                : new string((char)('a' + (i % 26)), length)).ToList();
            var xml = XeXmlEvents.RingBuffer([.. messages.Select((m, i) => XeXmlEvents.Progress(T1, m, sessionId: 50 + (i % 100)))]);

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.Empty(run.Status.Problems);
            Assert.Equal(messages, run.Progress.Select(p => p.Message));
            Assert.Equal(lengths.Select((_, i) => (int?)(50 + (i % 100))), run.Progress.Select(p => p.SessionId));
        }
    }

    public sealed class Numbers
    {
        private static string Wait(string duration, string session = "53", string opcode = "<value>1</value><text>End</text>") =>
            $"<event name=\"wait_info\" timestamp=\"{T1}\"><data name=\"wait_type\"><value>187</value><text>BACKUPIO</text></data>"
            + $"<data name=\"opcode\">{opcode}</data><data name=\"duration\"><value>{duration}</value></data>"
            + $"<action name=\"session_id\" package=\"sqlserver\"><value>{session}</value></action></event>";

        [Fact]
        public async Task A_number_read_from_the_characters_is_reported_exactly_as_written_when_out_of_range()
        {
            // Given a negative duration with leading zeros, a padded session id too large, and an integer too long for a long
            var xml = string.Join("\n", "<Rows>", Wait("-007"), Wait("12", session: " 070000 "), Wait("99999999999999999999"), "</Rows>");

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            Assert.Empty(run.Events);
            Assert.Equal(
                [
                    new InputProblem("line 2", "wait_info event has duration '-007', not a value SQL Server writes; event skipped"),
                    new InputProblem("line 3", "wait_info event has session_id ' 070000 ', not a value SQL Server writes; event skipped"),
                    new InputProblem("line 4", "wait_info event has duration '99999999999999999999', not a value SQL Server writes; event skipped"),
                ],
                run.Status.Problems);
        }

        [Fact]
        public async Task A_signed_or_padded_integer_in_range_is_read_as_its_value()
        {
            // Given a duration written with a plus sign and a session id padded with spaces
            var xml = Wait("+12", session: " 54 ");

            // When
            var run = await ReadXmlAsync(xml);

            // Then
            var wait = Assert.IsType<WaitEvent>(Assert.Single(run.Events));
            Assert.Equal(12, wait.DurationMs);
            Assert.Equal(54, wait.SessionId);
        }

        [Fact]
        public async Task Only_an_opcode_key_of_exactly_0_without_its_name_is_a_begin()
        {
            // Given an opcode key "0" and an opcode key "00", neither with its map name
            var xml = string.Join("\n", "<Rows>", Wait("5", opcode: "<value>0</value>"), Wait("6", opcode: "<value>00</value>"), "</Rows>");

            // When
            var run = await ReadXmlAsync(xml);

            // Then the first is a begin (counted, not analysed); "00" is not the key SQL Server writes for Begin
            Assert.Equal(2, run.Status.Events);
            Assert.Equal(6, Assert.IsType<WaitEvent>(Assert.Single(run.Events)).DurationMs);
        }

        [Fact]
        public async Task The_last_occurrence_of_a_field_counts_and_an_occurrence_without_value_clears_it()
        {
            // Given a duration written twice, then once more with only a text
            var first = $"<event name=\"wait_info\" timestamp=\"{T1}\"><data name=\"wait_type\"><text>BACKUPIO</text></data>"
                + "<data name=\"duration\"><value>1</value><value>2</value></data></event>";
            var second = $"<event name=\"wait_info\" timestamp=\"{T2}\"><data name=\"wait_type\"><text>BACKUPIO</text></data>"
                + "<data name=\"duration\"><value>1</value></data><data name=\"duration\"><text>x</text></data></event>";

            // When
            var run = await ReadXmlAsync($"<Rows>{first}\n{second}</Rows>");

            // Then
            Assert.Equal(2, Assert.IsType<WaitEvent>(Assert.Single(run.Events)).DurationMs);
            Assert.Equal("wait_info event has no duration; event skipped", Assert.Single(run.Status.Problems).Message);
        }
    }
}
