using System.Reflection;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// The projects depend on each other in one direction only (docs/development.md, "Layout"): the core knows no I/O and
/// no package, and the CLI shares the daemon's history library, never the daemon itself.
/// </summary>
public sealed class LayeringTests
{
    private static readonly Dictionary<string, string[]> Allowed = new()
    {
        ["BackupXe.Core"] = [],
        ["BackupXe.Sources"] = ["BackupXe.Core"],
        ["BackupXe.SqlServer"] = ["BackupXe.Core", "BackupXe.Sources"],
        ["BackupXe.History"] = ["BackupXe.Core", "BackupXe.Sources", "BackupXe.SqlServer"],
        ["backupxe"] = ["BackupXe.Core", "BackupXe.Sources", "BackupXe.SqlServer", "BackupXe.History"],
        ["BackupXe.Worker"] = ["BackupXe.Core", "BackupXe.Sources", "BackupXe.SqlServer", "BackupXe.History"],
    };

    public static TheoryData<string> ProductAssemblies() => [.. Allowed.Keys];

    [Theory]
    [MemberData(nameof(ProductAssemblies))]
    public void A_project_uses_only_the_projects_below_it(string assemblyName)
    {
        var used = Assembly.Load(new AssemblyName(assemblyName)).GetReferencedAssemblies()
            .Select(reference => reference.Name!)
            .Where(name => name.StartsWith("BackupXe", StringComparison.Ordinal) || name == "backupxe");

        Assert.Empty(used.Except(Allowed[assemblyName]));
    }

    [Fact]
    public void The_core_uses_nothing_but_the_framework()
    {
        var packages = typeof(Core.Analysis.AnalysisSession).Assembly.GetReferencedAssemblies()
            .Select(reference => reference.Name!)
            .Where(name => !name.StartsWith("System", StringComparison.Ordinal) && name is not ("netstandard" or "mscorlib"));

        Assert.Empty(packages);
    }

    [Fact]
    public void The_cli_does_not_carry_the_daemon_hosting_or_logging()
    {
        var used = typeof(BackupXe.Cli.Program).Assembly.GetReferencedAssemblies().Select(reference => reference.Name!).ToList();

        Assert.DoesNotContain(used, name => name.StartsWith("Serilog", StringComparison.Ordinal)
            || name.StartsWith("OpenTelemetry", StringComparison.Ordinal)
            || name.StartsWith("Microsoft.Extensions.Hosting", StringComparison.Ordinal));
    }

    [Fact]
    public void The_programs_expose_no_types()
    {
        // The CLI and the daemon are programs, not libraries: nothing outside them (the tests aside) may build on them.
        Assert.Empty(typeof(BackupXe.Cli.Program).Assembly.GetExportedTypes());
        Assert.Empty(typeof(BackupXe.Worker.WorkerServices).Assembly.GetExportedTypes());
    }
}
