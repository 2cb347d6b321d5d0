using System.Collections;
using System.Globalization;
using System.Reflection;
using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using BackupXe.Worker;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>docs/configuration.md and the sample appsettings.json must say what the options class does.</summary>
public sealed partial class DocumentedConfigurationTests
{
    private static readonly string RepositoryRoot = Repository.Root;

    [Fact]
    public void Every_option_is_documented_and_every_documented_key_exists()
    {
        var documented = DocumentedSettings().Keys.ToHashSet();
        var actual = OptionKeys().Select(option => option.Key).ToHashSet();

        Assert.Empty(actual.Except(documented));
        Assert.Empty(documented.Except(actual));
    }

    [Fact]
    public void Every_documented_default_is_the_code_default()
    {
        var documented = DocumentedSettings();
        var wrong = OptionKeys()
            .Where(option => documented.TryGetValue(option.Key, out var text) && text != option.Default)
            .Select(option => $"{option.Key}: documented {documented[option.Key]}, code {option.Default}")
            .ToList();

        Assert.Empty(wrong);
    }

    [Theory]
    [InlineData("src/BackupXe.Worker/appsettings.json")]
    [InlineData("deploy/demo/appsettings.json")]
    public void The_shipped_configurations_use_only_known_keys_and_are_valid(string file)
    {
        var configuration = new ConfigurationBuilder()
            .AddJsonFile(Path.Combine(RepositoryRoot, file))
            .Build();

        var options = configuration.GetSection(BackupXeOptions.SectionName)
            .Get<BackupXeOptions>(binder => binder.ErrorOnUnknownConfiguration = true)!;

        Assert.True(new BackupXeOptionsValidator().Validate(null, options).Succeeded);
    }

    [Fact]
    public void Only_the_demo_replays_the_samples_which_no_release_ships()
    {
        Options("src/BackupXe.Worker/appsettings.json").Instances.ForEach(instance => Assert.Null(instance.ReplayPath));
        Assert.All(Options("deploy/demo/appsettings.json").Instances, instance => Assert.StartsWith("../../samples/", instance.ReplayPath));

        static BackupXeOptions Options(string file) => new ConfigurationBuilder().AddJsonFile(Path.Combine(RepositoryRoot, file)).Build()
            .GetSection(BackupXeOptions.SectionName).Get<BackupXeOptions>()!;
    }

    [Fact]
    public void A_misspelt_key_stops_the_worker_instead_of_being_ignored()
    {
        using var provider = WorkerProvider(("BackupXe:Instances:0:Name", "prod"), ("BackupXe:Instances:0:ReplayPth", "a.xml"));

        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<IOptions<BackupXeOptions>>().Value);

        Assert.Contains("ReplayPth", error.ToString());
    }

    [Fact]
    public async Task The_host_refuses_to_start_with_invalid_options()
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection([new("BackupXe:Instances:0:ReplayPath", "a.xml")]);
        builder.Services.AddBackupXeWorker(builder.Configuration, builder.Environment);
        builder.Services.AddSingleton<IInstanceSourceFactory>(new ScriptedSourceFactory((_, _) => throw new InvalidOperationException()));
        builder.Services.AddSingleton<IOperationAnalyzer>(new ScriptedAnalyzer(new Dictionary<string, IReadOnlyList<BackupXe.Core.Reporting.OperationReport>>()));
        using var host = builder.Build();

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains("BackupXe:Instances:0:Name is required.", error.Failures);
    }

    private static ServiceProvider WorkerProvider(params (string Key, string? Value)[] settings)
    {
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(settings.Select(setting => new KeyValuePair<string, string?>(setting.Key, setting.Value)))
            .Build();
        var environment = new Microsoft.Extensions.Hosting.Internal.HostingEnvironment { ContentRootPath = Path.GetTempPath() };
        return new ServiceCollection().AddLogging().AddBackupXeWorker(configuration, environment).BuildServiceProvider();
    }

    /// <summary>Key to default column of the settings table, backticks removed.</summary>
    private static Dictionary<string, string> DocumentedSettings()
    {
        var text = File.ReadAllText(Path.Combine(RepositoryRoot, "docs", "configuration.md"));
        return SettingRow().Matches(text).ToDictionary(
            match => match.Groups["key"].Value,
            match => match.Groups["default"].Value.Trim().Trim('`'));
    }

    private static IEnumerable<(string Key, string Default)> OptionKeys()
        => Leaves(typeof(BackupXeOptions), new BackupXeOptions(), BackupXeOptions.SectionName);

    // Every settable property becomes a key; nested option classes and list elements are walked into,
    // list elements with the "N" the documentation uses for the index.
    private static IEnumerable<(string Key, string Default)> Leaves(Type type, object instance, string prefix)
    {
        foreach (var property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.SetMethod?.IsPublic == true))
        {
            var key = $"{prefix}:{property.Name}";
            var value = property.GetValue(instance);
            if (property.PropertyType.IsGenericType && property.PropertyType.GetGenericTypeDefinition() == typeof(List<>))
            {
                yield return (key, ((IList)value!).Count == 0 ? "[]" : "?");
                var elementType = property.PropertyType.GetGenericArguments()[0];
                // A list of names (strings) has no keys inside: the list's own row documents it.
                foreach (var leaf in elementType == typeof(string) ? [] : Leaves(elementType, Activator.CreateInstance(elementType)!, $"{key}:N"))
                {
                    yield return leaf;
                }
            }
            else if (property.PropertyType.IsClass && property.PropertyType != typeof(string))
            {
                foreach (var leaf in Leaves(property.PropertyType, value!, key))
                {
                    yield return leaf;
                }
            }
            else
            {
                yield return (key, value switch
                {
                    null => "(none)",
                    bool flag => flag ? "true" : "false",
                    IFormattable number => number.ToString(null, CultureInfo.InvariantCulture),
                    _ => value.ToString()!,
                });
            }
        }
    }

    [GeneratedRegex(@"^\| `(?<key>BackupXe:[^`]+)` \| (?<default>[^|]+) \|", RegexOptions.Multiline)]
    private static partial Regex SettingRow();
}
