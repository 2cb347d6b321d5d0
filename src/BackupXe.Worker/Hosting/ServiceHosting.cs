using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Hosting.Systemd;
using Microsoft.Extensions.Hosting.WindowsServices;

namespace BackupXe.Worker.Hosting;

/// <summary>
/// How the worker fits the service manager that started it: systemd (<c>Type=notify</c>: READY=1 once started,
/// STOPPING=1 when asked to stop), the Windows Service Control Manager (start/stop handshake), or none (a console).
/// </summary>
internal static class ServiceHosting
{
    /// <summary>The Windows service's name, and the Event Log source its start-up failures are written under.</summary>
    public const string WindowsServiceName = "BackupXe";

    /// <summary>
    /// Half of TimeoutStopSec=30 in deploy/systemd/backupxe.service: the host's own deadline cancels what is still
    /// stopping, and the history is closed, before the service manager would kill the process.
    /// </summary>
    public static readonly TimeSpan ShutdownTimeout = TimeSpan.FromSeconds(15);

    /// <summary>
    /// The content root to give the host: the folder --contentRoot names, a relative one taken from the working
    /// directory as every other path typed on a command line is (the host alone would take it from the worker's
    /// binaries folder); else, as a Windows service starts in C:\Windows\System32, the install folder there; else null
    /// (the working directory, which systemd sets from WorkingDirectory=).
    /// </summary>
    public static string? ContentRoot(IReadOnlyList<string> args, bool isWindowsService, string installFolder)
    {
        if (NamedContentRoot(args) is { Length: > 0 } named)
        {
            return Path.GetFullPath(named);
        }

        return isWindowsService ? installFolder : null;
    }

    private static string? NamedContentRoot(IReadOnlyList<string> args)
    {
        for (var i = 0; i < args.Count; i++)
        {
            if (string.Equals(args[i], "--contentRoot", StringComparison.OrdinalIgnoreCase))
            {
                return i + 1 < args.Count ? args[i + 1] : null;
            }

            if (args[i].StartsWith("--contentRoot=", StringComparison.OrdinalIgnoreCase))
            {
                return args[i]["--contentRoot=".Length..];
            }
        }

        return null;
    }

    public static HostApplicationBuilderSettings Settings(string[] args) => new()
    {
        Args = args,
        ContentRootPath = ContentRoot(args, WindowsServiceHelpers.IsWindowsService(), AppContext.BaseDirectory),
    };

    /// <summary>Both are no-ops unless the process was started by that service manager.</summary>
    public static IServiceCollection AddServiceManagerLifetime(this IServiceCollection services)
    {
        services.AddSystemd();
        services.AddWindowsService(options => options.ServiceName = WindowsServiceName);
        services.Configure<HostOptions>(options => options.ShutdownTimeout = ShutdownTimeout);
        return services;
    }

    public static bool IsServiceManaged => SystemdHelpers.IsSystemdService() || WindowsServiceHelpers.IsWindowsService();
}
