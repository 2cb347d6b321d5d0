using BackupXe.Worker.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Xunit;

namespace BackupXe.Tests.Worker.Hosting;

/// <summary>The choices the worker makes for the service manager that starts it, on any system.</summary>
public sealed class ServiceHostingTests
{
    [Fact]
    public void A_windows_service_reads_its_settings_from_the_install_folder_not_system32()
        => Assert.Equal(@"C:\Program Files\BackupXe\", ServiceHosting.ContentRoot([], isWindowsService: true, @"C:\Program Files\BackupXe\"));

    [Fact]
    public void A_content_root_given_on_the_service_command_line_wins()
        => Assert.Equal(Path.GetFullPath("/srv/backupxe"), ServiceHosting.ContentRoot(["--contentRoot", "/srv/backupxe"], isWindowsService: true, @"C:\Program Files\BackupXe\"));

    [Theory]
    [InlineData("--contentRoot", "deploy/demo")]
    [InlineData("--contentRoot=deploy/demo", null)]
    public void A_relative_content_root_is_the_working_directorys_not_the_binaries_folder(string option, string? value)
        => Assert.Equal(
            Path.Combine(Directory.GetCurrentDirectory(), "deploy", "demo"),
            ServiceHosting.ContentRoot(value is null ? [option] : [option, value], isWindowsService: false, "/opt/backupxe/"));

    [Fact]
    public void Outside_the_service_control_manager_the_working_directory_is_the_content_root()
        => Assert.Null(ServiceHosting.ContentRoot([], isWindowsService: false, "/opt/backupxe/"));

    [Fact]
    public void Started_from_a_console_the_host_keeps_its_console_lifetime_and_the_shorter_shutdown_deadline()
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = [] });
        builder.Services.AddServiceManagerLifetime();
        using var host = builder.Build();

        Assert.IsType<Microsoft.Extensions.Hosting.Internal.ConsoleLifetime>(host.Services.GetRequiredService<IHostLifetime>());
        Assert.Equal(ServiceHosting.ShutdownTimeout, host.Services.GetRequiredService<IOptions<HostOptions>>().Value.ShutdownTimeout);
    }
}
