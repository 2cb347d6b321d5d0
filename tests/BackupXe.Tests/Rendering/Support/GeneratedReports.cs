using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using FsCheck;
using FsCheck.Fluent;

namespace BackupXe.Tests.Rendering.Support;

/// <summary>
/// FsCheck generators for every report type, every property set or null (lists null, empty or with null items too,
/// which the model's types allow at run time), numbers at their extremes, strings that need escaping, every enum
/// value, dates of every kind. Doubles are finite: JSON has no NaN, and the writer and the serializer both refuse it.
/// </summary>
internal static class GeneratedReports
{
    public static Gen<string> Text { get; } = Gen.Frequency(
        (4, Gen.Elements(
            "",
            "Sales",
            @"C:\Backups\Sales_FULL.bak",
            "'quoted' \"double\"",
            "tab\tline\nreturn\r",
            "\0\u0001\u001F\u007F",
            "<script>&amp;'+`</script>",
            "Ünïcödé ß 日本語 Ωμέγα",
            "emoji 😀 pair",
            "\u2028\u2029\u00A0\uFEFF\uFFFD",
            "BACKUP DATABASE [Sales] TO DISK = N'x' WITH COPY_ONLY, MAXTRANSFERSIZE = 4194304;",
            new string('x', 5000))),
        (3, Gen.ArrayOf(Gen.Choose(0, 0x7F).Select(c => (char)c)).Select(chars => new string(chars))),
        (2, Gen.ArrayOf(Gen.Choose(0x80, 0xFFFF).Select(c => (char)c).Where(c => !char.IsSurrogate(c))).Select(chars => new string(chars))),

        // A lone surrogate is not valid UTF-16: both writers must refuse it (or write it) the same way.
        (1, Gen.Elements("\uD800", "x\uDC00y", "\uDBFF\uDBFF")));

    public static Gen<string?> MaybeText { get; } = Gen.Frequency((1, Gen.Constant<string?>(null)), (6, Text.Select(text => (string?)text)));

    public static Gen<long> Int64 { get; } = Gen.Frequency(
        (1, Gen.Elements(long.MinValue, long.MaxValue, 0L, -1L, 1L, 8192L, 1L << 53, (1L << 53) + 1)),
        (3, Bits()),
        (3, Gen.Choose(0, 1_000_000).Select(i => (long)i)));

    public static Gen<int> Int32 { get; } = Gen.Frequency(
        (1, Gen.Elements(int.MinValue, int.MaxValue, 0, -1, 1)),
        (3, Bits().Select(bits => (int)bits)),
        (3, Gen.Choose(0, 1000)));

    public static Gen<double> Double { get; } = Gen.Frequency(
        (2, Gen.Elements(0.0, -0.0, 1.0, -1.0, 0.1, 41.5, 1.0 / 3, 2.0 / 3, 1e21, 1e-7, 123456789.123456789, 1e15 + 0.3,
            double.MaxValue, double.MinValue, double.Epsilon, -double.Epsilon, 2.2250738585072014E-308)),
        (3, Bits().Select(BitConverter.Int64BitsToDouble).Where(double.IsFinite)),
        (3, Gen.Choose(0, 10_000_000).Select(i => i / 1000.0)));

    public static Gen<DateTime> Time { get; } =
        from ticks in Gen.Frequency(
            (1, Gen.Elements(0L, DateTime.MaxValue.Ticks, new DateTime(2025, 3, 3, 1, 0, 0).Ticks, new DateTime(2025, 3, 3, 1, 0, 0).Ticks + 1234567)),
            (3, Bits().Select(bits => (long)((ulong)bits % (ulong)(DateTime.MaxValue.Ticks + 1)))))
        from kind in Gen.Elements(DateTimeKind.Utc, DateTimeKind.Local, DateTimeKind.Unspecified)
        select new DateTime(ticks, kind);

    public static Gen<OperationReport> Operation { get; } =
        from head in
            from kind in Gen.Elements(Enum.GetValues<OperationKind>())
            from scope in Maybe(Gen.Elements(Enum.GetValues<OperationScope>()))
            from database in MaybeText
            from sessionId in Maybe(Int32)
            from start in Maybe(Time)
            from end in Maybe(Time)
            from status in Gen.Elements(Enum.GetValues<OperationStatus>())
            select (kind, scope, database, sessionId, start, end, status)
        from figures in
            from duration in Maybe(Double)
            from minimumDuration in Maybe(Double)
            from estimated in Maybe(Int64)
            from processed in Maybe(Int64)
            from throughput in Maybe(Double)
            from dataCopy in Maybe(Double)
            from pagesDumped in Maybe(Int64)
            from upgradeSteps in Int32
            from readers in Maybe(Int32)
            from ambiguous in Int64
            from unknown in Int32
            select (duration, minimumDuration, estimated, processed, throughput, dataCopy, pagesDumped, upgradeSteps, readers, ambiguous, unknown)
        from parts in
            from devices in ListOf(MaybeText.Select(path => new DeviceReport(path!)).OrNull())
            from engine in (from p in Int64 from s in Double from r in Double select new EngineSummaryReport(p, s, r)).OrNull()
            from processedFiles in ListOf((from d in MaybeText from f in MaybeText from p in Int64 select new ProcessedFileReport(d!, f!, p)).OrNull())
            from buffers in BufferConfig.OrNull()
            from options in (from c in Maybe(Bool) from z in Maybe(Bool) from e in Maybe(Bool) select new OptionsReport(c, z, e)).OrNull()
            from files in ListOf((from p in MaybeText from s in Maybe(Time) from e in Maybe(Time) from d in Maybe(Double) select new FileReadReport(p!, s, e, d)).OrNull())
            from zeroing in ListOf((from p in MaybeText from n in Maybe(Int64) from s in Maybe(Time) from e in Maybe(Time) from d in Maybe(Double) select new ZeroingReport(p!, n, s, e, d)).OrNull())
            from phases in ListOf((from n in MaybeText from s in Maybe(Time) from e in Maybe(Time) from d in Maybe(Double) select new PhaseReport(n!, s, e, d)).OrNull())
            select (devices, engine, processedFiles, buffers, options, files, zeroing, phases)
        from tail in
            from waits in ListOf(Wait.OrNull())
            from attribution in Maybe(Gen.Elements(Enum.GetValues<WaitAttribution>()))
            from progress in (from s in MaybeText from p in ListOf((from at in Time from b in Int64 select new ProgressPointReport(at, b)).OrNull()) select new ProgressReport(s!, p!)).OrNull()
            from failure in MaybeText
            from client in (from s in Time from e in Time from sec in Double from r in Double from src in MaybeText select new ClientCommandReport(s, e, sec, r, src!)).OrNull()
            from verdict in Verdict.OrNull()
            from recommendations in ListOf((from i in MaybeText from t in MaybeText from q in MaybeText select new Recommendation(i!, t!, q!)).OrNull())
            from samples in ListOf(Text)
            select (waits, attribution, progress, failure, client, verdict, recommendations, samples)
        select new OperationReport
        {
            Kind = head.kind,
            Scope = head.scope,
            Database = head.database,
            SessionId = head.sessionId,
            Start = head.start,
            End = head.end,
            Status = head.status,
            DurationSeconds = figures.duration,
            MinimumDurationSeconds = figures.minimumDuration,
            EstimatedBytes = figures.estimated,
            BytesProcessed = figures.processed,
            ThroughputMBps = figures.throughput,
            DataCopyThroughputMBps = figures.dataCopy,
            Devices = parts.devices!,
            EngineSummary = parts.engine,
            PagesDumped = figures.pagesDumped,
            ProcessedFiles = parts.processedFiles!,
            UpgradeSteps = figures.upgradeSteps,
            DataFileReaders = figures.readers,
            BufferConfig = parts.buffers,
            Options = parts.options,
            Files = parts.files!,
            Zeroing = parts.zeroing!,
            Phases = parts.phases!,
            Waits = tail.waits!,
            WaitAttribution = tail.attribution,
            Progress = tail.progress,
            AmbiguousWaits = figures.ambiguous,
            FailureReason = tail.failure,
            UnknownMessages = figures.unknown,
            UnknownMessageSamples = tail.samples ?? [],
            ClientCommand = tail.client,
            Verdict = tail.verdict,
            Recommendations = tail.recommendations!,
        };

    public static Gen<InputReport> Input { get; } =
        from path in MaybeText
        from format in Gen.Frequency((3, Gen.Elements<string?>("xel", "xe-xml", "errorlog", "unknown")), (1, MaybeText))
        from events in Int64
        from problems in ListOf((from l in MaybeText from m in MaybeText select new InputProblem(l!, m!)).OrNull())
        select new InputReport(path!, format!, events, problems!);

    /// <summary>What the end of a run knows; the summary's counts come from the operations written before it.</summary>
    public static Gen<AnalysisFindings> Findings { get; } =
        from inputs in ListOf(Input.OrNull())
        from unattributed in Int64
        from orphans in Int64
        from ambiguous in ListOf(Wait.OrNull())
        select new AnalysisFindings(inputs!, unattributed, orphans) { AmbiguousWaits = ambiguous! };

    private static Gen<bool> Bool => Gen.Elements(true, false);

    private static Gen<WaitReport> Wait =>
        from type in MaybeText
        from count in Int64
        from total in Int64
        from max in Int64
        from signal in Int64
        select new WaitReport(type!, count, total, max, signal);

    private static Gen<Verdict> Verdict =>
        from bottleneck in Gen.Elements(Enum.GetValues<Bottleneck>())
        from confidence in Gen.Elements(Enum.GetValues<Confidence>())
        from evidence in ListOf(MaybeText)
        from decidedBy in MaybeText
        from wouldChange in MaybeText
        select new Verdict(bottleneck, confidence, evidence!) { DecidedBy = decidedBy, WouldChange = wouldChange };

    private static Gen<BufferConfigReport> BufferConfig =>
        from counts in Gen.ArrayOf(Maybe(Int32), 10)
        from sizes in Gen.ArrayOf(Maybe(Int64), 5)
        from reported in Bool
        select new BufferConfigReport
        {
            BufferCount = counts[0],
            MaxTransferSizeBytes = sizes[0],
            MinMaxTransferSizeBytes = sizes[1],
            TotalBufferBytes = sizes[2],
            TotalBufferBytesReported = reported,
            MemoryLimitBytes = sizes[3],
            SetsOfBuffers = counts[1],
            TabularDataDeviceCount = counts[2],
            FulltextDataDeviceCount = counts[3],
            FilestreamDeviceCount = counts[4],
            MediaBufferCount = counts[5],
            MediaBufferSizeBytes = sizes[4],
            EncodeBufferCount = counts[6],
            BuffersPerReadStream = counts[7],
            BuffersPerWriteStream = counts[8],
            FilesystemIoAlignment = counts[9],
        };

    /// <summary>Null, empty, or a few items.</summary>
    private static Gen<IReadOnlyList<T>?> ListOf<T>(Gen<T> item) => Gen.Frequency(
        (1, Gen.Constant<IReadOnlyList<T>?>(null)),
        (8, Gen.Choose(0, 4).SelectMany(count => Gen.ListOf(item, count)).Select(items => (IReadOnlyList<T>?)items.ToList())));

    private static Gen<T?> Maybe<T>(Gen<T> value) where T : struct => Gen.Frequency(
        (1, Gen.Constant<T?>(null)),
        (3, value.Select(v => (T?)v)));

    /// <summary>64 random bits.</summary>
    private static Gen<long> Bits() =>
        from a in Gen.Choose(0, 0xFFFF)
        from b in Gen.Choose(0, 0xFFFF)
        from c in Gen.Choose(0, 0xFFFF)
        from d in Gen.Choose(0, 0xFFFF)
        select ((long)a << 48) | ((long)b << 32) | ((long)c << 16) | (long)d;
}
