using System.ComponentModel;
using System.Diagnostics;
using System.Security;
using Microsoft.Extensions.Hosting.WindowsServices;

namespace BackupXe.Worker.Hosting;

/// <summary>
/// Where a failure to start is said: standard error always (the journal under systemd, the console otherwise), and
/// the Windows Application event log under the Service Control Manager, where standard error goes nowhere.
/// </summary>
internal static class StartupFailureLog
{
    public static void Write(string message, int exitCode)
    {
        Console.Error.WriteLine(message);
        if (OperatingSystem.IsWindows() && WindowsServiceHelpers.IsWindowsService())
        {
            try
            {
                // The source is registered by the install steps (docs/deploy.md): the service's virtual account
                // may write under it but not create it.
                EventLog.WriteEntry(ServiceHosting.WindowsServiceName, message, EventLogEntryType.Error, 1000 + exitCode);
            }
            catch (Exception exception) when (exception is SecurityException or InvalidOperationException or Win32Exception or ArgumentException)
            {
                // Nothing else to tell: the exit code still reaches the Service Control Manager.
            }
        }
    }
}
