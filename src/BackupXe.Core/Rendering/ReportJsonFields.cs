using System.Text.Encodings.Web;
using System.Text.Json;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// The report types written field by field on a <see cref="Utf8JsonWriter"/>, byte for byte what
/// <see cref="JsonSerializer"/> writes with <see cref="ReportJson.Options"/> (names, order, nulls, enum spellings,
/// number and date formats, escaping). The serializer stays the reader and the tests' oracle: every report of the
/// samples and fixtures, generated reports covering every property, and a check that every public property is
/// written, compare the two (tests/BackupXe.Tests/Rendering/ReportJsonFieldsTests.cs).
/// </summary>
/// <remarks>
/// Why not the serializer: with the source-generated metadata it still takes about 1.3 times the CPU of a large
/// <c>analyze --format json</c> on the native build (docs/performance.md, "The JSON report"). Only
/// <see cref="Utf8JsonWriter"/>'s non-generic methods run here. Names come from the CLR property names through the
/// contract's naming policy, so a renamed property is renamed in both.
/// </remarks>
internal static class ReportJsonFields
{
    /// <summary>
    /// The contract's escaping, shared with <see cref="ReportJson.Options"/>: null is System.Text.Json's default,
    /// which escapes every character outside Basic Latin and the HTML-sensitive ones, so the report is ASCII.
    /// </summary>
    internal static readonly JavaScriptEncoder? Encoder = null;

    /// <summary>Property names: camelCase.</summary>
    internal static readonly JsonNamingPolicy PropertyNaming = JsonNamingPolicy.CamelCase;

    /// <summary>Enum values: kebab-case strings (buffer-starved, time-overlap).</summary>
    internal static readonly JsonNamingPolicy EnumNaming = JsonNamingPolicy.KebabCaseLower;

    private static readonly EnumSpelling OperationKinds = new(typeof(OperationKind));
    private static readonly EnumSpelling OperationScopes = new(typeof(OperationScope));
    private static readonly EnumSpelling OperationStatuses = new(typeof(OperationStatus));
    private static readonly EnumSpelling QuietKinds = new(typeof(QuietKind));
    private static readonly EnumSpelling WaitAttributions = new(typeof(WaitAttribution));
    private static readonly EnumSpelling Bottlenecks = new(typeof(Bottleneck));
    private static readonly EnumSpelling Confidences = new(typeof(Confidence));

    /// <summary>The writer options the serializer derives from the contract's options (two-space indent, the platform's new line).</summary>
    public static JsonWriterOptions WriterOptions(bool indented) => new() { Indented = indented, Encoder = Encoder };

    /// <summary>One operation object, as <c>JsonSerializer.Serialize(writer, report, ReportJson.Options)</c> writes it.</summary>
    /// <param name="texts">The run's escaped long texts, when it writes many operations; null escapes them here.</param>
    public static void Write(Utf8JsonWriter writer, OperationReport? report, EscapedJsonCache? texts = null)
    {
        if (report is null)
        {
            writer.WriteNullValue();
            return;
        }

        writer.WriteStartObject();
        writer.WriteString(Names.Kind, OperationKinds.Of((int)report.Kind));
        WriteEnum(writer, Names.Scope, OperationScopes, (int?)report.Scope);
        writer.WriteString(Names.Database, report.Database);
        writer.WriteNumberOrNull(Names.SessionId, report.SessionId);
        WriteTime(writer, Names.Start, report.Start);
        WriteTime(writer, Names.End, report.End);
        writer.WriteString(Names.Status, OperationStatuses.Of((int)report.Status));
        writer.WriteNumberOrNull(Names.DurationSeconds, report.DurationSeconds);
        writer.WriteNumberOrNull(Names.MinimumDurationSeconds, report.MinimumDurationSeconds);
        writer.WriteNumberOrNull(Names.EstimatedBytes, report.EstimatedBytes);
        writer.WriteNumberOrNull(Names.EstimatedLogBytes, report.EstimatedLogBytes);
        writer.WriteNumberOrNull(Names.BytesProcessed, report.BytesProcessed);
        writer.WriteNumberOrNull(Names.ThroughputMBps, report.ThroughputMBps);
        writer.WriteNumberOrNull(Names.DataCopyThroughputMBps, report.DataCopyThroughputMBps);

        writer.WritePropertyName(Names.Devices);
        if (StartArray(writer, report.Devices))
        {
            foreach (var device in report.Devices)
            {
                if (StartObject(writer, device))
                {
                    writer.WriteString(Names.Path, device.Path);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WritePropertyName(Names.EngineSummary);
        if (StartObject(writer, report.EngineSummary))
        {
            var summary = report.EngineSummary;
            writer.WriteNumber(Names.Pages, summary.Pages);
            writer.WriteNumber(Names.Seconds, summary.Seconds);
            writer.WriteNumber(Names.MegabytesPerSecond, summary.MegabytesPerSecond);
            writer.WriteEndObject();
        }

        writer.WriteNumberOrNull(Names.PagesDumped, report.PagesDumped);

        writer.WritePropertyName(Names.ProcessedFiles);
        if (StartArray(writer, report.ProcessedFiles))
        {
            foreach (var file in report.ProcessedFiles)
            {
                if (StartObject(writer, file))
                {
                    writer.WriteString(Names.Database, file.Database);
                    writer.WriteString(Names.LogicalFile, file.LogicalFile);
                    writer.WriteNumber(Names.Pages, file.Pages);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WriteNumber(Names.UpgradeSteps, report.UpgradeSteps);
        writer.WritePropertyName(Names.UpgradeGaps);
        if (StartArray(writer, report.UpgradeGaps))
        {
            foreach (var gap in report.UpgradeGaps)
            {
                if (StartObject(writer, gap))
                {
                    writer.WriteNumber(Names.FromVersion, gap.FromVersion);
                    writer.WriteNumber(Names.ToVersion, gap.ToVersion);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WriteNumberOrNull(Names.DataFileReaders, report.DataFileReaders);
        writer.WritePropertyName(Names.BufferConfig);
        Write(writer, report.BufferConfig);

        writer.WritePropertyName(Names.Options);
        if (StartObject(writer, report.Options))
        {
            writer.WriteBooleanOrNull(Names.Checksum, report.Options.Checksum);
            writer.WriteBooleanOrNull(Names.Compression, report.Options.Compression);
            writer.WriteBooleanOrNull(Names.Encryption, report.Options.Encryption);
            writer.WriteEndObject();
        }

        writer.WritePropertyName(Names.Files);
        if (StartArray(writer, report.Files))
        {
            foreach (var file in report.Files)
            {
                if (StartObject(writer, file))
                {
                    writer.WriteString(Names.Path, file.Path);
                    WriteSpan(writer, file.Start, file.End, file.Seconds);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WritePropertyName(Names.Zeroing);
        if (StartArray(writer, report.Zeroing))
        {
            foreach (var zeroing in report.Zeroing)
            {
                if (StartObject(writer, zeroing))
                {
                    writer.WriteString(Names.Path, zeroing.Path);
                    writer.WriteNumberOrNull(Names.Pages, zeroing.Pages);
                    WriteSpan(writer, zeroing.Start, zeroing.End, zeroing.Seconds);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WritePropertyName(Names.Phases);
        if (StartArray(writer, report.Phases))
        {
            foreach (var phase in report.Phases)
            {
                if (StartObject(writer, phase))
                {
                    writer.WriteString(Names.Name, phase.Name);
                    WriteSpan(writer, phase.Start, phase.End, phase.Seconds);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WritePropertyName(Names.QuietPeriods);
        if (StartArray(writer, report.QuietPeriods))
        {
            foreach (var quiet in report.QuietPeriods)
            {
                if (StartObject(writer, quiet))
                {
                    writer.WriteString(Names.From, quiet.From);
                    writer.WriteString(Names.To, quiet.To);
                    writer.WriteString(Names.Phase, quiet.Phase);
                    WriteEnum(writer, Names.Kind, QuietKinds, (int)quiet.Kind);
                    writer.WriteBoolean(Names.Ongoing, quiet.Ongoing);
                    writer.WriteNumber(Names.Seconds, quiet.Seconds);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WritePropertyName(Names.Waits);
        Write(writer, report.Waits);
        WriteEnum(writer, Names.WaitAttribution, WaitAttributions, (int?)report.WaitAttribution);

        writer.WritePropertyName(Names.Progress);
        if (StartObject(writer, report.Progress))
        {
            writer.WriteString(Names.Source, report.Progress.Source);
            writer.WritePropertyName(Names.Points);
            if (!ProgressPointsJson.TryWrite(writer, report.Progress.Points) && StartArray(writer, report.Progress.Points))
            {
                foreach (var point in report.Progress.Points)
                {
                    if (StartObject(writer, point))
                    {
                        writer.WriteString(Names.At, point.At);
                        writer.WriteNumber(Names.Bytes, point.Bytes);
                        writer.WriteEndObject();
                    }
                }

                writer.WriteEndArray();
            }

            writer.WriteEndObject();
        }

        writer.WriteNumber(Names.AmbiguousWaits, report.AmbiguousWaits);
        writer.WriteString(Names.FailureReason, report.FailureReason);
        writer.WritePropertyName(Names.Snapshot);
        if (StartObject(writer, report.Snapshot))
        {
            var snapshot = report.Snapshot;
            writer.WriteString(Names.Method, snapshot.Method);
            WriteTime(writer, Names.FrozenAt, snapshot.FrozenAt);
            WriteTime(writer, Names.ResumedAt, snapshot.ResumedAt);
            writer.WriteNumberOrNull(Names.FrozenSeconds, snapshot.FrozenSeconds);
            writer.WriteEndObject();
        }

        writer.WritePropertyName(Names.FailureError);
        if (StartObject(writer, report.FailureError))
        {
            var error = report.FailureError;
            writer.WriteNumber(Names.Number, error.Number);
            writer.WriteNumberOrNull(Names.Severity, error.Severity);
            writer.WriteString(Names.ErrorText, error.Text);
            writer.WriteString(Names.Stage, error.Stage is { } stage ? Kebab.Of(stage) : null);
            writer.WritePropertyName(Names.OsError);
            if (StartObject(writer, error.OsError))
            {
                writer.WriteNumberOrNull(Names.Code, error.OsError.Code);
                writer.WriteString(Names.Meaning, error.OsError.Meaning);
                writer.WriteEndObject();
            }

            writer.WriteString(Names.Target, error.Target);
            writer.WritePropertyName(Names.Remedy);
            if (StartObject(writer, error.Remedy))
            {
                writer.WriteString(Names.Id, error.Remedy.Id);
                writer.WriteString(Names.Text, error.Remedy.Text);
                writer.WriteString(Names.Source, error.Remedy.Source);
                writer.WriteEndObject();
            }

            writer.WriteEndObject();
        }

        writer.WriteNumber(Names.UnknownMessages, report.UnknownMessages);

        writer.WritePropertyName(Names.ClientCommand);
        if (StartObject(writer, report.ClientCommand))
        {
            var command = report.ClientCommand;
            writer.WriteString(Names.Start, command.Start);
            writer.WriteString(Names.End, command.End);
            writer.WriteNumber(Names.Seconds, command.Seconds);
            writer.WriteNumber(Names.ResolutionSeconds, command.ResolutionSeconds);
            writer.WriteString(Names.Source, command.Source);
            writer.WriteEndObject();
        }

        writer.WritePropertyName(Names.Requested);
        if (StartObject(writer, report.Requested))
        {
            var requested = report.Requested;
            writer.WritePropertyName(Names.Devices);
            writer.WriteStartArray();
            foreach (var device in requested.Devices)
            {
                writer.WriteStringValue(device);
            }

            writer.WriteEndArray();
            writer.WriteNumberOrNull(Names.BufferCount, requested.BufferCount);
            writer.WriteNumberOrNull(Names.MaxTransferSizeBytes, requested.MaxTransferSizeBytes);
            writer.WriteNumberOrNull(Names.BlockSizeBytes, requested.BlockSizeBytes);
            writer.WriteBooleanOrNull(Names.Compression, requested.Compression);
            writer.WriteBooleanOrNull(Names.Checksum, requested.Checksum);
            writer.WriteBoolean(Names.CopyOnly, requested.CopyOnly);
            writer.WriteString(Names.Source, requested.Source);
            writer.WriteEndObject();
        }

        writer.WritePropertyName(Names.Server);
        if (StartObject(writer, report.Server))
        {
            var server = report.Server;
            writer.WriteNumber(Names.Major, server.Major);
            writer.WriteNumber(Names.Minor, server.Minor);
            writer.WriteString(Names.Build, server.Build);
            writer.WriteString(Names.ServerEvidence, server.Evidence);
            writer.WriteString(Names.Product, server.Product);
            writer.WriteEndObject();
        }

        writer.WritePropertyName(Names.Verdict);
        if (StartObject(writer, report.Verdict))
        {
            var verdict = report.Verdict;
            writer.WriteString(Names.Bottleneck, Bottlenecks.Of((int)verdict.Bottleneck));
            writer.WriteString(Names.Confidence, Confidences.Of((int)verdict.Confidence));
            writer.WritePropertyName(Names.Evidence);
            if (StartArray(writer, verdict.Evidence))
            {
                foreach (var evidence in verdict.Evidence)
                {
                    if (texts?.Escaped(evidence) is { } escaped)
                    {
                        writer.WriteStringValue(escaped);
                    }
                    else
                    {
                        writer.WriteStringValue(evidence);
                    }
                }

                writer.WriteEndArray();
            }

            writer.WriteString(Names.DecidedBy, verdict.DecidedBy);
            writer.WriteString(Names.WouldChange, verdict.WouldChange);
            writer.WriteEndObject();
        }

        writer.WritePropertyName(Names.Recommendations);
        if (StartArray(writer, report.Recommendations))
        {
            foreach (var recommendation in report.Recommendations)
            {
                if (StartObject(writer, recommendation))
                {
                    writer.WriteString(Names.Id, recommendation.Id);
                    WriteText(writer, Names.Text, recommendation.Text, texts);
                    WriteText(writer, Names.Tsql, recommendation.Tsql, texts);
                    var gain = recommendation.ExpectedGain;
                    writer.WritePropertyName(Names.ExpectedGain);
                    writer.WriteStartObject();
                    writer.WriteString(Names.Basis, Kebab.Of(gain.Basis));
                    WriteText(writer, Names.Text, gain.Text, texts);
                    writer.WriteNumberOrNull(Names.AtMostTimesFaster, gain.AtMostTimesFaster);
                    writer.WriteEndObject();
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        // Only a run given a history has one, so the serializer's cost is paid per compared operation.
        writer.WritePropertyName(Names.History);
        if (report.History is null)
        {
            writer.WriteNullValue();
        }
        else
        {
            JsonSerializer.Serialize(writer, report.History, ReportJson.TypeInfo<BaselineComparisonReport>(ReportJson.Options));
        }

        writer.WriteEndObject();
    }

    /// <summary>The report's <c>inputs</c> array.</summary>
    /// <summary>
    /// <c>runsCompared</c> and <c>findings</c>, each only when the run has some (docs/json-schema.md): written by the
    /// contract's serializer, as they are a few records at the end of a run, not one per operation.
    /// </summary>
    public static void WriteRunsCompared(Utf8JsonWriter writer, AnalysisFindings findings)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(findings);
        if (findings.RunsCompared.Count > 0)
        {
            writer.WritePropertyName("runsCompared");
            JsonSerializer.Serialize(writer, findings.RunsCompared, ReportJson.TypeInfo<IReadOnlyList<RunsComparedReport>>(ReportJson.Options));
        }

        if (findings.InputFindings.Count > 0)
        {
            writer.WritePropertyName("findings");
            JsonSerializer.Serialize(writer, findings.InputFindings, ReportJson.TypeInfo<IReadOnlyList<InputFindingReport>>(ReportJson.Options));
        }
    }

    public static void Write(Utf8JsonWriter writer, IReadOnlyList<InputReport>? inputs)
    {
        if (!StartArray(writer, inputs))
        {
            return;
        }

        foreach (var input in inputs)
        {
            if (StartObject(writer, input))
            {
                writer.WriteString(Names.Path, input.Path);
                writer.WriteString(Names.Format, input.Format);
                writer.WriteNumber(Names.Events, input.Events);
                writer.WritePropertyName(Names.Problems);
                if (StartArray(writer, input.Problems))
                {
                    foreach (var problem in input.Problems)
                    {
                        if (StartObject(writer, problem))
                        {
                            writer.WriteString(Names.Location, problem.Location);
                            writer.WriteString(Names.Message, problem.Message);
                            writer.WriteEndObject();
                        }
                    }

                    writer.WriteEndArray();
                }

                writer.WriteEndObject();
            }
        }

        writer.WriteEndArray();
    }

    /// <summary>The report's <c>summary</c> object.</summary>
    public static void Write(Utf8JsonWriter writer, SummaryReport? summary)
    {
        if (!StartObject(writer, summary))
        {
            return;
        }

        writer.WriteNumber(Names.Operations, summary.Operations);
        writer.WriteNumber(Names.Completed, summary.Completed);
        writer.WriteNumber(Names.Failed, summary.Failed);
        writer.WriteNumber(Names.Incomplete, summary.Incomplete);
        writer.WritePropertyName(Names.Bottlenecks);
        if (StartArray(writer, summary.Bottlenecks))
        {
            foreach (var count in summary.Bottlenecks)
            {
                if (StartObject(writer, count))
                {
                    writer.WriteString(Names.Bottleneck, Bottlenecks.Of((int)count.Bottleneck));
                    writer.WriteNumber(Names.Operations, count.Operations);
                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        writer.WriteNumber(Names.UnattributedWaits, summary.UnattributedWaits);
        writer.WritePropertyName(Names.AmbiguousWaits);
        Write(writer, summary.AmbiguousWaits);
        writer.WriteNumber(Names.OrphanMessages, summary.OrphanMessages);
        writer.WriteEndObject();
    }

    private static void Write(Utf8JsonWriter writer, IReadOnlyList<WaitReport>? waits)
    {
        if (!StartArray(writer, waits))
        {
            return;
        }

        foreach (var wait in waits)
        {
            if (StartObject(writer, wait))
            {
                writer.WriteString(Names.WaitType, wait.WaitType);
                writer.WriteNumber(Names.Count, wait.Count);
                writer.WriteNumber(Names.TotalMs, wait.TotalMs);
                writer.WriteNumber(Names.MaxMs, wait.MaxMs);
                writer.WriteNumber(Names.SignalMs, wait.SignalMs);
                writer.WriteEndObject();
            }
        }

        writer.WriteEndArray();
    }

    private static void Write(Utf8JsonWriter writer, BufferConfigReport? config)
    {
        if (!StartObject(writer, config))
        {
            return;
        }

        writer.WriteNumberOrNull(Names.BufferCount, config.BufferCount);
        writer.WriteNumberOrNull(Names.MaxTransferSizeBytes, config.MaxTransferSizeBytes);
        writer.WriteNumberOrNull(Names.MinMaxTransferSizeBytes, config.MinMaxTransferSizeBytes);
        writer.WriteNumberOrNull(Names.TotalBufferBytes, config.TotalBufferBytes);
        writer.WriteBoolean(Names.TotalBufferBytesReported, config.TotalBufferBytesReported);
        writer.WriteNumberOrNull(Names.MemoryLimitBytes, config.MemoryLimitBytes);
        writer.WriteNumberOrNull(Names.SetsOfBuffers, config.SetsOfBuffers);
        writer.WriteNumberOrNull(Names.TabularDataDeviceCount, config.TabularDataDeviceCount);
        writer.WriteNumberOrNull(Names.FulltextDataDeviceCount, config.FulltextDataDeviceCount);
        writer.WriteNumberOrNull(Names.FilestreamDeviceCount, config.FilestreamDeviceCount);
        writer.WriteNumberOrNull(Names.MediaBufferCount, config.MediaBufferCount);
        writer.WriteNumberOrNull(Names.MediaBufferSizeBytes, config.MediaBufferSizeBytes);
        writer.WriteNumberOrNull(Names.EncodeBufferCount, config.EncodeBufferCount);
        writer.WriteNumberOrNull(Names.BuffersPerReadStream, config.BuffersPerReadStream);
        writer.WriteNumberOrNull(Names.BuffersPerWriteStream, config.BuffersPerWriteStream);
        writer.WriteNumberOrNull(Names.FilesystemIoAlignment, config.FilesystemIoAlignment);
        writer.WriteEndObject();
    }

    /// <summary>Writes <c>null</c> for a missing object (as the serializer does), else opens it.</summary>
    private static bool StartObject<T>(Utf8JsonWriter writer, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] T? value)
        where T : class
    {
        if (value is null)
        {
            writer.WriteNullValue();
            return false;
        }

        writer.WriteStartObject();
        return true;
    }

    private static bool StartArray<T>(Utf8JsonWriter writer, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] IReadOnlyList<T>? values)
    {
        if (values is null)
        {
            writer.WriteNullValue();
            return false;
        }

        writer.WriteStartArray();
        return true;
    }

    private static void WriteTime(Utf8JsonWriter writer, JsonEncodedText name, DateTime? value)
    {
        if (value is { } time)
        {
            writer.WriteString(name, time);
        }
        else
        {
            writer.WriteNull(name);
        }
    }

    private static void WriteText(Utf8JsonWriter writer, JsonEncodedText name, string? value, EscapedJsonCache? texts)
    {
        if (texts?.Escaped(value) is { } escaped)
        {
            writer.WriteString(name, escaped);
        }
        else
        {
            writer.WriteString(name, value);
        }
    }

    /// <summary>The <c>start</c>, <c>end</c> and <c>seconds</c> that files, zeroing and phases share.</summary>
    private static void WriteSpan(Utf8JsonWriter writer, DateTime? start, DateTime? end, double? seconds)
    {
        WriteTime(writer, Names.Start, start);
        WriteTime(writer, Names.End, end);
        writer.WriteNumberOrNull(Names.Seconds, seconds);
    }

    private static void WriteEnum(Utf8JsonWriter writer, JsonEncodedText name, EnumSpelling spelling, int? value)
    {
        if (value is { } number)
        {
            writer.WriteString(name, spelling.Of(number));
        }
        else
        {
            writer.WriteNull(name);
        }
    }

    private static JsonEncodedText PropertyName(string property) => JsonEncodedText.Encode(PropertyNaming.ConvertName(property), Encoder);

    /// <summary>Every property name of the report types, once each (several types share <c>start</c>, <c>path</c>...).</summary>
    internal static class Names
    {
        public static readonly JsonEncodedText Kind = PropertyName(nameof(OperationReport.Kind));
        public static readonly JsonEncodedText Scope = PropertyName(nameof(OperationReport.Scope));
        public static readonly JsonEncodedText Database = PropertyName(nameof(OperationReport.Database));
        public static readonly JsonEncodedText SessionId = PropertyName(nameof(OperationReport.SessionId));
        public static readonly JsonEncodedText Start = PropertyName(nameof(OperationReport.Start));
        public static readonly JsonEncodedText End = PropertyName(nameof(OperationReport.End));
        public static readonly JsonEncodedText Status = PropertyName(nameof(OperationReport.Status));
        public static readonly JsonEncodedText DurationSeconds = PropertyName(nameof(OperationReport.DurationSeconds));
        public static readonly JsonEncodedText MinimumDurationSeconds = PropertyName(nameof(OperationReport.MinimumDurationSeconds));
        public static readonly JsonEncodedText EstimatedBytes = PropertyName(nameof(OperationReport.EstimatedBytes));
        public static readonly JsonEncodedText EstimatedLogBytes = PropertyName(nameof(OperationReport.EstimatedLogBytes));
        public static readonly JsonEncodedText History = PropertyName(nameof(OperationReport.History));
        public static readonly JsonEncodedText BytesProcessed = PropertyName(nameof(OperationReport.BytesProcessed));
        public static readonly JsonEncodedText ThroughputMBps = PropertyName(nameof(OperationReport.ThroughputMBps));
        public static readonly JsonEncodedText DataCopyThroughputMBps = PropertyName(nameof(OperationReport.DataCopyThroughputMBps));
        public static readonly JsonEncodedText Devices = PropertyName(nameof(OperationReport.Devices));
        public static readonly JsonEncodedText EngineSummary = PropertyName(nameof(OperationReport.EngineSummary));
        public static readonly JsonEncodedText PagesDumped = PropertyName(nameof(OperationReport.PagesDumped));
        public static readonly JsonEncodedText ProcessedFiles = PropertyName(nameof(OperationReport.ProcessedFiles));
        public static readonly JsonEncodedText UpgradeSteps = PropertyName(nameof(OperationReport.UpgradeSteps));
        public static readonly JsonEncodedText UpgradeGaps = PropertyName(nameof(OperationReport.UpgradeGaps));
        public static readonly JsonEncodedText FromVersion = PropertyName(nameof(VersionGap.FromVersion));
        public static readonly JsonEncodedText ToVersion = PropertyName(nameof(VersionGap.ToVersion));
        public static readonly JsonEncodedText DataFileReaders = PropertyName(nameof(OperationReport.DataFileReaders));
        public static readonly JsonEncodedText BufferConfig = PropertyName(nameof(OperationReport.BufferConfig));
        public static readonly JsonEncodedText Options = PropertyName(nameof(OperationReport.Options));
        public static readonly JsonEncodedText Files = PropertyName(nameof(OperationReport.Files));
        public static readonly JsonEncodedText Zeroing = PropertyName(nameof(OperationReport.Zeroing));
        public static readonly JsonEncodedText Phases = PropertyName(nameof(OperationReport.Phases));
        public static readonly JsonEncodedText QuietPeriods = PropertyName(nameof(OperationReport.QuietPeriods));
        public static readonly JsonEncodedText From = PropertyName(nameof(QuietPeriod.From));
        public static readonly JsonEncodedText To = PropertyName(nameof(QuietPeriod.To));
        public static readonly JsonEncodedText Phase = PropertyName(nameof(QuietPeriod.Phase));
        public static readonly JsonEncodedText Ongoing = PropertyName(nameof(QuietPeriod.Ongoing));
        public static readonly JsonEncodedText Waits = PropertyName(nameof(OperationReport.Waits));
        public static readonly JsonEncodedText WaitAttribution = PropertyName(nameof(OperationReport.WaitAttribution));
        public static readonly JsonEncodedText Progress = PropertyName(nameof(OperationReport.Progress));
        public static readonly JsonEncodedText AmbiguousWaits = PropertyName(nameof(OperationReport.AmbiguousWaits));
        public static readonly JsonEncodedText FailureReason = PropertyName(nameof(OperationReport.FailureReason));
        public static readonly JsonEncodedText FailureError = PropertyName(nameof(OperationReport.FailureError));
        public static readonly JsonEncodedText Snapshot = PropertyName(nameof(OperationReport.Snapshot));
        public static readonly JsonEncodedText Method = PropertyName(nameof(SnapshotReport.Method));
        public static readonly JsonEncodedText FrozenAt = PropertyName(nameof(SnapshotReport.FrozenAt));
        public static readonly JsonEncodedText ResumedAt = PropertyName(nameof(SnapshotReport.ResumedAt));
        public static readonly JsonEncodedText FrozenSeconds = PropertyName(nameof(SnapshotReport.FrozenSeconds));
        public static readonly JsonEncodedText Number = PropertyName(nameof(FailureErrorReport.Number));
        public static readonly JsonEncodedText ErrorText = PropertyName(nameof(FailureErrorReport.Text));
        public static readonly JsonEncodedText Severity = PropertyName(nameof(FailureErrorReport.Severity));
        public static readonly JsonEncodedText Stage = PropertyName(nameof(FailureErrorReport.Stage));
        public static readonly JsonEncodedText OsError = PropertyName(nameof(FailureErrorReport.OsError));
        public static readonly JsonEncodedText Code = PropertyName(nameof(OsErrorReport.Code));
        public static readonly JsonEncodedText Meaning = PropertyName(nameof(OsErrorReport.Meaning));
        public static readonly JsonEncodedText Target = PropertyName(nameof(FailureErrorReport.Target));
        public static readonly JsonEncodedText Remedy = PropertyName(nameof(FailureErrorReport.Remedy));
        public static readonly JsonEncodedText UnknownMessages = PropertyName(nameof(OperationReport.UnknownMessages));
        public static readonly JsonEncodedText ClientCommand = PropertyName(nameof(OperationReport.ClientCommand));
        public static readonly JsonEncodedText Requested = PropertyName(nameof(OperationReport.Requested));
        public static readonly JsonEncodedText BlockSizeBytes = PropertyName(nameof(RequestedReport.BlockSizeBytes));
        public static readonly JsonEncodedText CopyOnly = PropertyName(nameof(RequestedReport.CopyOnly));
        public static readonly JsonEncodedText Verdict = PropertyName(nameof(OperationReport.Verdict));
        public static readonly JsonEncodedText Recommendations = PropertyName(nameof(OperationReport.Recommendations));

        public static readonly JsonEncodedText Path = PropertyName(nameof(DeviceReport.Path));
        public static readonly JsonEncodedText Pages = PropertyName(nameof(EngineSummaryReport.Pages));
        public static readonly JsonEncodedText Seconds = PropertyName(nameof(EngineSummaryReport.Seconds));
        public static readonly JsonEncodedText MegabytesPerSecond = PropertyName(nameof(EngineSummaryReport.MegabytesPerSecond));
        public static readonly JsonEncodedText LogicalFile = PropertyName(nameof(ProcessedFileReport.LogicalFile));
        public static readonly JsonEncodedText Checksum = PropertyName(nameof(OptionsReport.Checksum));
        public static readonly JsonEncodedText Compression = PropertyName(nameof(OptionsReport.Compression));
        public static readonly JsonEncodedText Encryption = PropertyName(nameof(OptionsReport.Encryption));
        public static readonly JsonEncodedText Name = PropertyName(nameof(PhaseReport.Name));
        public static readonly JsonEncodedText Source = PropertyName(nameof(ProgressReport.Source));
        public static readonly JsonEncodedText Points = PropertyName(nameof(ProgressReport.Points));
        public static readonly JsonEncodedText At = PropertyName(nameof(ProgressPointReport.At));
        public static readonly JsonEncodedText Bytes = PropertyName(nameof(ProgressPointReport.Bytes));
        public static readonly JsonEncodedText ResolutionSeconds = PropertyName(nameof(ClientCommandReport.ResolutionSeconds));
        public static readonly JsonEncodedText Bottleneck = PropertyName(nameof(BottleneckCount.Bottleneck));
        public static readonly JsonEncodedText Confidence = PropertyName(nameof(Reporting.Verdict.Confidence));
        public static readonly JsonEncodedText Evidence = PropertyName(nameof(Reporting.Verdict.Evidence));
        public static readonly JsonEncodedText DecidedBy = PropertyName(nameof(Reporting.Verdict.DecidedBy));
        public static readonly JsonEncodedText WouldChange = PropertyName(nameof(Reporting.Verdict.WouldChange));
        public static readonly JsonEncodedText Id = PropertyName(nameof(Recommendation.Id));
        public static readonly JsonEncodedText Text = PropertyName(nameof(Recommendation.Text));
        public static readonly JsonEncodedText Tsql = PropertyName(nameof(Recommendation.Tsql));
        public static readonly JsonEncodedText ExpectedGain = PropertyName(nameof(Recommendation.ExpectedGain));
        public static readonly JsonEncodedText Basis = PropertyName(nameof(Reporting.ExpectedGain.Basis));
        public static readonly JsonEncodedText AtMostTimesFaster = PropertyName(nameof(Reporting.ExpectedGain.AtMostTimesFaster));
        public static readonly JsonEncodedText Server = PropertyName(nameof(OperationReport.Server));
        public static readonly JsonEncodedText Major = PropertyName(nameof(ServerVersion.Major));
        public static readonly JsonEncodedText Minor = PropertyName(nameof(ServerVersion.Minor));
        public static readonly JsonEncodedText Build = PropertyName(nameof(ServerVersion.Build));
        public static readonly JsonEncodedText ServerEvidence = PropertyName(nameof(ServerVersion.Evidence));
        public static readonly JsonEncodedText Product = PropertyName(nameof(ServerVersion.Product));
        public static readonly JsonEncodedText WaitType = PropertyName(nameof(WaitReport.WaitType));
        public static readonly JsonEncodedText Count = PropertyName(nameof(WaitReport.Count));
        public static readonly JsonEncodedText TotalMs = PropertyName(nameof(WaitReport.TotalMs));
        public static readonly JsonEncodedText MaxMs = PropertyName(nameof(WaitReport.MaxMs));
        public static readonly JsonEncodedText SignalMs = PropertyName(nameof(WaitReport.SignalMs));
        public static readonly JsonEncodedText BufferCount = PropertyName(nameof(BufferConfigReport.BufferCount));
        public static readonly JsonEncodedText MaxTransferSizeBytes = PropertyName(nameof(BufferConfigReport.MaxTransferSizeBytes));
        public static readonly JsonEncodedText MinMaxTransferSizeBytes = PropertyName(nameof(BufferConfigReport.MinMaxTransferSizeBytes));
        public static readonly JsonEncodedText TotalBufferBytes = PropertyName(nameof(BufferConfigReport.TotalBufferBytes));
        public static readonly JsonEncodedText TotalBufferBytesReported = PropertyName(nameof(BufferConfigReport.TotalBufferBytesReported));
        public static readonly JsonEncodedText MemoryLimitBytes = PropertyName(nameof(BufferConfigReport.MemoryLimitBytes));
        public static readonly JsonEncodedText SetsOfBuffers = PropertyName(nameof(BufferConfigReport.SetsOfBuffers));
        public static readonly JsonEncodedText TabularDataDeviceCount = PropertyName(nameof(BufferConfigReport.TabularDataDeviceCount));
        public static readonly JsonEncodedText FulltextDataDeviceCount = PropertyName(nameof(BufferConfigReport.FulltextDataDeviceCount));
        public static readonly JsonEncodedText FilestreamDeviceCount = PropertyName(nameof(BufferConfigReport.FilestreamDeviceCount));
        public static readonly JsonEncodedText MediaBufferCount = PropertyName(nameof(BufferConfigReport.MediaBufferCount));
        public static readonly JsonEncodedText MediaBufferSizeBytes = PropertyName(nameof(BufferConfigReport.MediaBufferSizeBytes));
        public static readonly JsonEncodedText EncodeBufferCount = PropertyName(nameof(BufferConfigReport.EncodeBufferCount));
        public static readonly JsonEncodedText BuffersPerReadStream = PropertyName(nameof(BufferConfigReport.BuffersPerReadStream));
        public static readonly JsonEncodedText BuffersPerWriteStream = PropertyName(nameof(BufferConfigReport.BuffersPerWriteStream));
        public static readonly JsonEncodedText FilesystemIoAlignment = PropertyName(nameof(BufferConfigReport.FilesystemIoAlignment));

        public static readonly JsonEncodedText Format = PropertyName(nameof(InputReport.Format));
        public static readonly JsonEncodedText Events = PropertyName(nameof(InputReport.Events));
        public static readonly JsonEncodedText Problems = PropertyName(nameof(InputReport.Problems));
        public static readonly JsonEncodedText Location = PropertyName(nameof(InputProblem.Location));
        public static readonly JsonEncodedText Message = PropertyName(nameof(InputProblem.Message));

        public static readonly JsonEncodedText Operations = PropertyName(nameof(SummaryReport.Operations));
        public static readonly JsonEncodedText Completed = PropertyName(nameof(SummaryReport.Completed));
        public static readonly JsonEncodedText Failed = PropertyName(nameof(SummaryReport.Failed));
        public static readonly JsonEncodedText Incomplete = PropertyName(nameof(SummaryReport.Incomplete));
        public static readonly JsonEncodedText Bottlenecks = PropertyName(nameof(SummaryReport.Bottlenecks));
        public static readonly JsonEncodedText UnattributedWaits = PropertyName(nameof(SummaryReport.UnattributedWaits));
        public static readonly JsonEncodedText OrphanMessages = PropertyName(nameof(SummaryReport.OrphanMessages));
    }

    /// <summary>
    /// Each value of an enum spelled once, indexed by the value: the report's enums number their members 0, 1, 2...
    /// in order, which is checked once here rather than on every write. An array, not an immutable collection: a
    /// generic collection over <see cref="JsonEncodedText"/> is JIT-compiled at start-up, as the serializer's were.
    /// </summary>
    private sealed class EnumSpelling
    {
        private readonly JsonEncodedText[] _spellings;
        private readonly string _enumName;

        public EnumSpelling(Type enumType)
        {
            _enumName = enumType.Name;
            var names = Enum.GetNames(enumType);
            var values = Enum.GetValuesAsUnderlyingType(enumType);
            _spellings = new JsonEncodedText[names.Length];
            for (var i = 0; i < names.Length; i++)
            {
                if (!Equals(values.GetValue(i), i))
                {
                    throw new InvalidOperationException($"{enumType.Name}.{names[i]} is not numbered {i}: the JSON writer indexes enum spellings by value.");
                }

                _spellings[i] = JsonEncodedText.Encode(EnumNaming.ConvertName(names[i]), Encoder);
            }
        }

        /// <exception cref="JsonException">A value the enum does not define, which the contract's converter refuses too (no integer values).</exception>
        public JsonEncodedText Of(int value)
            => (uint)value < (uint)_spellings.Length
                ? _spellings[value]
                : throw new JsonException($"{value} is not a value of {_enumName}: the JSON report spells enums by name only.");
    }
}
