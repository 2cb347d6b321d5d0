using System.Globalization;

namespace BackupXe.Core.Reporting;

/// <summary>How numbers read in every human format: sizes in binary units (SQL Server's MB is 1,048,576 bytes).</summary>
public static class Units
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public static string Bytes(long? bytes)
    {
        if (bytes is not { } b)
        {
            return "?";
        }

        string[] names = ["bytes", "KB", "MB", "GB", "TB"];
        double value = b;
        var unit = 0;
        while (value >= 1024 && unit < names.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Create(Invariant, $"{b} bytes")
            : string.Create(Invariant, $"{(value >= 100 || value % 1 == 0 ? value.ToString("0", Invariant) : value.ToString("0.#", Invariant))} {names[unit]}");
    }

    /// <summary>
    /// Buffer space and memory limits in KB or MB, never GB: the unit SQL Server prints them in ("Memory limit: 16383
    /// MB") and BUFFERCOUNT x MAXTRANSFERSIZE is reckoned in, so the engine's figure and ours read alike.
    /// </summary>
    public static string Memory(long? bytes) => bytes switch
    {
        null => "?",
        >= 1024 * 1024 => string.Create(Invariant, $"{bytes.Value / 1048576.0:0.#} MB"),
        >= 1024 => string.Create(Invariant, $"{bytes.Value / 1024.0:0.#} KB"),
        _ => string.Create(Invariant, $"{bytes.Value} bytes"),
    };

    /// <summary>The operation's duration, or "at least 19.05 s" when its closing line is not in the input.</summary>
    public static string Duration(OperationReport op) =>
        op.DurationSeconds is null && op.MinimumDurationSeconds is { } minimum ? "at least " + Duration(minimum) : Duration(op.DurationSeconds);

    public static string Duration(double? seconds)
    {
        if (seconds is not { } s)
        {
            return "?";
        }

        var span = TimeSpan.FromSeconds(s);
        return s switch
        {
            < 60 => string.Create(Invariant, $"{s:0.##} s"),
            < 3600 => string.Create(Invariant, $"{(int)span.TotalMinutes} min {span.Seconds:00} s"),
            _ => string.Create(Invariant, $"{(int)span.TotalHours} h {span.Minutes:00} min"),
        };
    }

    public static string Rate(double? megabytesPerSecond)
        => megabytesPerSecond is { } r ? string.Create(Invariant, $"{r:0.#} MB/s") : "?";

    public static string Milliseconds(long ms)
        => ms >= 10_000 ? string.Create(Invariant, $"{ms / 1000.0:0.#} s") : string.Create(Invariant, $"{ms} ms");

    /// <summary>Timestamps keep their own precision up to milliseconds, and a Z only when the source was UTC.</summary>
    public static string Timestamp(DateTime? at)
        => at is { } t
            ? t.ToString(t.Kind == DateTimeKind.Utc ? "yyyy-MM-dd HH:mm:ss.fff'Z'" : "yyyy-MM-dd HH:mm:ss.fff", Invariant)
            : "?";

    public static string Time(DateTime? at) => at is { } t ? t.ToString("HH:mm:ss.fff", Invariant) : "?";

    public static string Title(OperationReport operation)
        => Title(operation.Kind, operation.Scope, operation.Database, operation.SessionId);

    public static string Title(Events.OperationKind kind, Parsing.OperationScope? operationScope, string? databaseName, int? sessionId)
    {
        var verb = kind == Events.OperationKind.Backup ? "BACKUP" : "RESTORE";
        var scope = operationScope switch
        {
            Parsing.OperationScope.Log => "LOG",
            Parsing.OperationScope.Differential => "DATABASE (differential)",
            Parsing.OperationScope.File => "DATABASE (file)",
            _ => "DATABASE",
        };
        var database = databaseName is { } d ? $" [{d}]" : string.Empty;
        var session = sessionId is { } s ? $", session {s}" : string.Empty;
        return $"{verb} {scope}{database}{session}";
    }
}
