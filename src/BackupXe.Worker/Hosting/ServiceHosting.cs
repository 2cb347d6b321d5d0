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
    /// The content root to give the host: a Windows service starts in C:\Windows\System32, so there it is the install
    /// folder unless --contentRoot says otherwise; elsewhere null (the working directory, which systemd sets from
    /// WorkingDirectory=).
    /// </summary>
    public static string? ContentRoot(IReadOnlyList<string> args, bool isWindowsService, string installFolder)
        => isWindowsService && !args.Any(arg => arg.StartsWith("--contentRoot", StringComparison.OrdinalIgnoreCase))
            ? installFolder
            : null;

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
