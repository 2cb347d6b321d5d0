using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.Hosting.Internal;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.Configuration;

/// <summary>
/// <c>BackupXe.Worker --validate [FILE]</c>: the BackupXe section of one settings file bound and validated as the
/// worker does at start-up, with relative paths resolved against the file's folder, and nothing else done: no
/// connection, no history file created, no log file opened (so the Serilog section's sinks are not built).
/// </summary>
internal static class ConfigurationCheck
{
    public sealed record Result(int ExitCode, IReadOnlyList<string> Problems, int InstanceCount);

    public static Result Check(string path)
    {
        var fullPath = Path.GetFullPath(path);
        if (!File.Exists(fullPath))
        {
            return Invalid($"{fullPath}: no such file");
        }

        IConfigurationRoot configuration;
        try
        {
            configuration = new ConfigurationBuilder().AddJsonFile(fullPath, optional: false, reloadOnChange: false).Build();
        }
        catch (Exception exception) when (exception is InvalidDataException or FormatException or System.Text.Json.JsonException or IOException or UnauthorizedAccessException)
        {
            var reason = exception.InnerException is { } inner ? $"{exception.Message} {inner.Message}" : exception.Message;
            return Invalid($"{fullPath} cannot be read: {reason}");
        }

        BackupXeOptions options;
        try
        {
            options = configuration.GetSection(BackupXeOptions.SectionName)
                .Get<BackupXeOptions>(binder => binder.ErrorOnUnknownConfiguration = true) ?? new BackupXeOptions();
        }
        catch (InvalidOperationException exception)
        {
            // The binder's complaint about an unknown key or a value of the wrong type; which key and which type are
            // in the inner exceptions.
            var reasons = new List<string>();
            for (Exception? inner = exception; inner is not null; inner = inner.InnerException)
            {
                reasons.Add(inner.Message);
            }

            return new Result(ExitCodes.InvalidConfiguration, reasons, 0);
        }

        var folder = Path.GetDirectoryName(fullPath)!;
        var environment = new HostingEnvironment
        {
            ContentRootPath = folder,
            ContentRootFileProvider = new NullFileProvider(),
            EnvironmentName = "Production",
            ApplicationName = "BackupXe.Worker",
        };
        var result = new BackupXeOptionsValidator(environment).Validate(null, options);
        return result.Failed
            ? new Result(ExitCodes.InvalidConfiguration, result.Failures?.ToList() ?? [result.FailureMessage], options.Instances.Count)
            : new Result(ExitCodes.Success, [], options.Instances.Count);
    }

    private static Result Invalid(string problem) => new(ExitCodes.InvalidConfiguration, [problem], 0);
}
