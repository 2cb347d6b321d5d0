using System.Globalization;

namespace BackupXe.Benchmarks.Live;

/// <summary>
/// A process's CPU time and memory as Linux accounts them: utime + stime from <c>/proc/PID/stat</c> (clock ticks of
/// 1/100 s, the kernel's USER_HZ), and VmRSS / VmHWM (peak) / Threads from <c>/proc/PID/status</c>.
/// </summary>
public sealed record ProcessSample(double CpuSeconds, long RssBytes, long PeakRssBytes, int Threads)
{
    private const double TicksPerSecond = 100;

    public static ProcessSample Read(int pid)
    {
        var stat = File.ReadAllText($"/proc/{pid}/stat");
        // Fields after the command name in parentheses, which may itself contain spaces: state is field 3.
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        var cpu = (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / TicksPerSecond;
        long rss = 0, peak = 0;
        var threads = 0;
        foreach (var line in File.ReadLines($"/proc/{pid}/status"))
        {
            if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
            {
                rss = Kilobytes(line) * 1024;
            }
            else if (line.StartsWith("VmHWM:", StringComparison.Ordinal))
            {
                peak = Kilobytes(line) * 1024;
            }
            else if (line.StartsWith("Threads:", StringComparison.Ordinal))
            {
                threads = int.Parse(line["Threads:".Length..].Trim(), CultureInfo.InvariantCulture);
            }
        }

        return new ProcessSample(cpu, rss, peak, threads);
    }

    private static long Kilobytes(string line) =>
        long.Parse(line[(line.IndexOf(':') + 1)..].Replace("kB", string.Empty, StringComparison.Ordinal).Trim(), CultureInfo.InvariantCulture);
}
