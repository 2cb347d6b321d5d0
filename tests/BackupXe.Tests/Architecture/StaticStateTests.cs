using System.Reflection;
using System.Runtime.CompilerServices;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// What a message means must never depend on what was parsed before on the same thread or in another input:
/// the product's assemblies keep no mutable static state.
/// </summary>
public sealed class StaticStateTests
{
    public static TheoryData<string> ProductAssemblies() =>
    [
        typeof(Core.Analysis.AnalysisSession).Assembly.GetName().Name!,
        typeof(BackupXe.Sources.InputSources).Assembly.GetName().Name!,
        typeof(BackupXe.SqlServer.ConnectionStringRedactor).Assembly.GetName().Name!,
        typeof(BackupXe.History.SqliteHistoryStore).Assembly.GetName().Name!,
        typeof(BackupXe.Cli.Program).Assembly.GetName().Name!,
        typeof(BackupXe.Worker.WorkerServices).Assembly.GetName().Name!,
    ];

    [Theory]
    [MemberData(nameof(ProductAssemblies))]
    public void No_static_field_can_change_after_start_up(string assemblyName)
    {
        // Given every static field the assembly declares (compiler-generated caches aside)
        var assembly = Assembly.Load(new AssemblyName(assemblyName));
        var fields = assembly.GetTypes()
            .Where(type => !type.IsDefined(typeof(CompilerGeneratedAttribute)) && !type.Name.Contains('<', StringComparison.Ordinal))
            .SelectMany(type => type.GetFields(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly)
                .Select(field => (Type: type, Field: field)))
            .Where(x => !x.Field.IsLiteral && !x.Field.IsDefined(typeof(CompilerGeneratedAttribute)) && !x.Field.Name.Contains('<', StringComparison.Ordinal));

        // Then each is read-only and of a type whose content cannot change either
        var mutable = fields
            .Where(x => !x.Field.IsInitOnly || x.Field.IsDefined(typeof(ThreadStaticAttribute)) || IsMutableCollection(x.Field.FieldType))
            .Select(x => $"{x.Type.FullName}.{x.Field.Name}")
            .ToList();
        Assert.Empty(mutable);
    }

    private static bool IsMutableCollection(Type type)
        => type.IsArray
            || (type.IsGenericType && type.GetGenericTypeDefinition() is var definition
                && (definition == typeof(List<>) || definition == typeof(Dictionary<,>) || definition == typeof(HashSet<>)
                    || definition == typeof(Queue<>) || definition == typeof(Stack<>)));
}
