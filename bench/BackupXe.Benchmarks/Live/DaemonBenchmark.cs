using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using BackupXe.Testing.Tds;

namespace BackupXe.Benchmarks.Live;

/// <summary>
/// One daemon (the built worker, <c>dotnet BackupXe.Worker.dll</c>, in its own process, as deployed) with N live
/// instances on the <c>file</c> transport, each pointed at its own <see cref="SimulatedInstance"/> on a loopback port
/// of this process. Every instance emits the same steady rate of events (a large backup's BACKUPBUFFER waits). After a
/// warm-up in which every instance has been read at least once, the worker's CPU time and memory are sampled from
/// /proc every second over the window; events/s is the rows the worker fetched (distinct rows served, summed over
/// instances) per second, and the lag is how far each instance's reader is behind its emitter at the end.
/// </summary>
public static class DaemonBenchmark
{
    public static async Task<int> RunAsync(int[] instanceCounts, double eventsPerMinute, double seconds, double pollSeconds, string capture)
    {
        var templates = SimulatedEventFile.Templates(capture);
        Console.WriteLine($"machine: {Environment.ProcessorCount} cores; load average before: {LoadAverage()}");
        Console.WriteLine("| instances | events/min each | poll | worker CPU (cores) | worker RSS avg / peak | threads | events/s fetched / emitted | lag at end: median / max | doubles' CPU (cores) | load avg | worker warnings |");
        Console.WriteLine("|---|---|---|---|---|---|---|---|---|---|---|");
        foreach (var count in instanceCounts)
        {
            Console.WriteLine(await RunOneAsync(count, eventsPerMinute, seconds, pollSeconds, templates).ConfigureAwait(false));
        }

        return 0;
    }

    private static async Task<string> RunOneAsync(int count, double eventsPerMinute, double seconds, double pollSeconds, IReadOnlyList<(string, string)> templates)
    {
        var folder = Directory.CreateTempSubdirectory("backupxe-daemon-bench-").FullName;
        var rate = eventsPerMinute / 60;
        var startUtc = DateTime.UtcNow;
        var startTimestamp = Stopwatch.GetTimestamp();
        var instances = Enumerable.Range(0, count)
            .Select(_ => SimulatedInstance.Start(new SimulatedEventFile(templates, rate, startUtc, startTimestamp)))
            .ToList();
        try
        {
            await File.WriteAllTextAsync(Path.Combine(folder, "appsettings.json"), Settings(instances, pollSeconds)).ConfigureAwait(false);
            var start = new ProcessStartInfo("dotnet")
            {
                WorkingDirectory = folder,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "BackupXe.Worker.dll"));
            start.Environment["DOTNET_ENVIRONMENT"] = "Production";
            for (var i = 0; i < count; i++)
            {
                // As deployed: the password from the environment, never in appsettings.json.
                start.Environment[$"BackupXe__Instances__{i}__Password"] = TdsClient.Password;
            }

            using var worker = Process.Start(start)!;
            var lastLines = new Queue<string>();
            var warnings = 0;
            string? lastWarning = null;
            void Keep(string? line)
            {
                if (line is null)
                {
                    return;
                }

                lock (lastLines)
                {
                    if (line.Contains(" WRN]", StringComparison.Ordinal) || line.Contains(" ERR]", StringComparison.Ordinal))
                    {
                        warnings++;
                        lastWarning = line;
                    }

                    lastLines.Enqueue(line);
                    if (lastLines.Count > 20)
                    {
                        lastLines.Dequeue();
                    }
                }
            }

            worker.OutputDataReceived += (_, e) => Keep(e.Data);
            worker.ErrorDataReceived += (_, e) => Keep(e.Data);
            worker.BeginOutputReadLine();
            worker.BeginErrorReadLine();
            try
            {
                var warm = Stopwatch.StartNew();
                while (instances.Any(i => i.File.Served == 0) && warm.Elapsed < TimeSpan.FromSeconds(120) && !worker.HasExited)
                {
                    await Task.Delay(200).ConfigureAwait(false);
                }

                if (worker.HasExited)
                {
                    lock (lastLines)
                    {
                        return $"| {count} | worker exited with {worker.ExitCode}: {string.Join(" / ", lastLines)} |";
                    }
                }

                var connected = instances.Count(i => i.File.Served > 0);
                var self = Process.GetCurrentProcess();
                var before = ProcessSample.Read(worker.Id);
                var selfBefore = self.TotalProcessorTime;
                var servedBefore = instances.Sum(i => i.File.Served);
                var emittedBefore = instances.Sum(i => i.File.Emitted);
                var clock = Stopwatch.StartNew();
                var rss = new List<long>();
                while (clock.Elapsed.TotalSeconds < seconds && !worker.HasExited)
                {
                    await Task.Delay(1000).ConfigureAwait(false);
                    rss.Add(ProcessSample.Read(worker.Id).RssBytes);
                }

                var after = ProcessSample.Read(worker.Id);
                var elapsed = clock.Elapsed.TotalSeconds;
                self.Refresh();
                var selfCpu = (self.TotalProcessorTime - selfBefore).TotalSeconds;
                var served = instances.Sum(i => i.File.Served) - servedBefore;
                var emitted = instances.Sum(i => i.File.Emitted) - emittedBefore;
                var lags = instances.Select(i => (i.File.Emitted - i.File.Served) / rate).Order().ToList();
                var poll = pollSeconds.ToString(CultureInfo.InvariantCulture);
                return string.Create(CultureInfo.InvariantCulture,
                    $"| {count}{(connected < count ? $" ({connected} read)" : string.Empty)} | {eventsPerMinute:N0} | {poll} s | {(after.CpuSeconds - before.CpuSeconds) / elapsed:F2} "
                    + $"| {rss.Average() / 1_048_576:N0} / {after.PeakRssBytes / 1_048_576:N0} MB | {after.Threads} | {served / elapsed:N0} / {emitted / elapsed:N0} "
                    + $"| {lags[lags.Count / 2]:F1} s / {lags[^1]:F1} s | {selfCpu / elapsed:F2} | {LoadAverage()} | {warnings}{(lastWarning is null ? string.Empty : $" (last: {lastWarning})")} |");
            }
            finally
            {
                worker.Kill();
                await worker.WaitForExitAsync().ConfigureAwait(false);
            }
        }
        finally
        {
            foreach (var instance in instances)
            {
                await instance.DisposeAsync().ConfigureAwait(false);
            }

            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>The worker's appsettings.json: one live instance per simulated server, warnings only on the console.</summary>
    private static string Settings(IReadOnlyList<SimulatedInstance> instances, double pollSeconds) => JsonSerializer.Serialize(new
    {
        Serilog = new
        {
            Using = new[] { "Serilog.Sinks.Console" },
            MinimumLevel = new { Default = "Warning" },
            WriteTo = new[] { new { Name = "Console" } },
        },
        BackupXe = new
        {
            Instances = instances.Select((instance, i) => new
            {
                Name = $"sim-{i:D4}",
                instance.Server.Server,
                UserName = TdsClient.User,
                Encrypt = false, // the double speaks no TLS
                PollIntervalSeconds = pollSeconds,
            }),
            RetryDelaySeconds = 5,
            History = new { Path = "backupxe-history.db" },
        },
    });

    private static string LoadAverage() => File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "?";
}
