using System.Diagnostics;
using System.Globalization;
using System.Text;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Sources.Errorlog;

namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// Where an ERRORLOG's time goes, warm and in-process: the pipeline cut after each stage (lines read, lines split
/// into columns, events made, operations analysed, the JSON report written), each stage run several times in one
/// process, best run kept. The difference between two stages is what the later one adds. For profiling and for
/// choosing between variants; the whole-process figures are <see cref="ProcessBenchmark"/>'s.
/// </summary>
public static class StageBenchmark
{
    private static readonly string[] Stages = ["bare-readline", "lines", "columns", "events", "analyze", "analyze-one-thread", "json", "json-one-thread"];

    public static int Run(string path, int rounds, IReadOnlyList<string>? only)
    {
        Console.WriteLine("| stage | best s | median s | allocated MB | count |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        foreach (var stage in only is { Count: > 0 } ? only : Stages)
        {
            if (!Stages.Contains(stage))
            {
                Console.Error.WriteLine($"unknown stage '{stage}' (stages: {string.Join(", ", Stages)})");
                return 1;
            }

            var seconds = new List<double>();
            long allocated = 0;
            long count = 0;
            for (var round = 0; round < rounds; round++)
            {
                var before = GC.GetTotalAllocatedBytes(precise: true);
                var clock = Stopwatch.StartNew();
                count = RunStage(stage, path);
                seconds.Add(clock.Elapsed.TotalSeconds);
                allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
            }

            seconds.Sort();
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {stage} | {seconds[0]:F3} | {seconds[seconds.Count / 2]:F3} | {allocated / 1e6:F0} | {count} |"));
        }

        return 0;
    }

    private static long RunStage(string stage, string path)
    {
        switch (stage)
        {
            case "bare-readline":
            {
                using var reader = new StreamReader(path, Encoding.UTF8, detectEncodingFromByteOrderMarks: true);
                long lines = 0;
                while (reader.ReadLine() is not null)
                {
                    lines++;
                }

                return lines;
            }

            case "lines":
            {
                // As the ERRORLOG source reads: a raw log straight into blocks, anything else through a StreamReader.
                using var blocks = CharBlocks.Open(InputFile.OpenRead(path), Encoding.UTF8, 64 * 1024);
                var lines = new BoundedLineReader(blocks);
                long count = 0;
                while (lines.ReadLine(out _))
                {
                    count++;
                }

                return count;
            }

            case "columns":
            {
                using var blocks = CharBlocks.Open(InputFile.OpenRead(path), Encoding.UTF8, 64 * 1024);
                var lines = new BoundedLineReader(blocks);
                var lastLine = new ErrorlogLine.LastLine();
                long count = 0;
                while (lines.ReadLine(out var line))
                {
                    if (ErrorlogLine.TryParse(line, lastLine, out _))
                    {
                        count++;
                    }
                }

                return count;
            }

            case "events":
                return new ErrorlogEventSource(path).ReadEvents(new SourceStatus(), CancellationToken.None).LongCount();

            case "analyze" or "analyze-one-thread":
            {
                var sink = new CountingSink();
                Analyse(path, sink, readAhead: stage == "analyze");
                return sink.Count;
            }

            default:
            {
                using var writer = new JsonReportWriter(Stream.Null);
                var findings = Analyse(path, writer, readAhead: stage == "json");
                writer.Complete(findings);
                return 1;
            }
        }
    }

    private static AnalysisFindings Analyse(string path, IOperationSink sink, bool readAhead)
        => new AnalysisSession([new ErrorlogEventSource(path)], new AnalysisOptions { ReadAhead = readAhead })
            .RunAsync(sink, CancellationToken.None).GetAwaiter().GetResult();

    private sealed class CountingSink : IOperationSink
    {
        public long Count { get; private set; }

        public void OnOperationCompleted(OperationReport report) => Count++;
    }
}
