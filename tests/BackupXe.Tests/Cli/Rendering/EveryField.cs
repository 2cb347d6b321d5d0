using System.Collections;
using System.Reflection;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// A value of a product model with every property set and every list holding one item, found by reflection (its
/// widest constructor, internal ones included, then every setter, then one call of each one-argument <c>Add</c>): a
/// field added to a model a verb writes as JSON is set here without anyone editing this file, so the verb's JSON
/// shows whether its writer and docs/json-schema.md know it. Nesting deeper than a few levels is left null.
/// </summary>
internal static class EveryField
{
    private const int DeepestLevel = 8;

    public static T Of<T>() => (T)Of(typeof(T), 0)!;

    private static object? Of(Type type, int level)
    {
        if (Nullable.GetUnderlyingType(type) is { } underlying)
        {
            return Of(underlying, level);
        }

        if (type.IsEnum)
        {
            // The last value: the first is often the "none" or "unknown" a writer leaves out.
            var values = Enum.GetValues(type);
            return values.GetValue(values.Length - 1);
        }

        if (Scalar(type) is { } scalar)
        {
            return scalar;
        }

        if (type.IsArray)
        {
            var array = Array.CreateInstance(type.GetElementType()!, 1);
            array.SetValue(Of(type.GetElementType()!, level + 1), 0);
            return array;
        }

        if (type.IsGenericType && ListLike(type.GetGenericTypeDefinition()))
        {
            var item = type.GetGenericArguments()[0];
            var list = (IList)Activator.CreateInstance(typeof(List<>).MakeGenericType(item))!;
            if (level < DeepestLevel)
            {
                list.Add(Of(item, level + 1));
            }

            return list;
        }

        if (type.IsGenericType && type.GetGenericTypeDefinition() is var map && (map == typeof(IReadOnlyDictionary<,>) || map == typeof(Dictionary<,>)))
        {
            var arguments = type.GetGenericArguments();
            var dictionary = (IDictionary)Activator.CreateInstance(typeof(Dictionary<,>).MakeGenericType(arguments))!;
            dictionary.Add(Of(arguments[0], level + 1)!, Of(arguments[1], level + 1));
            return dictionary;
        }

        if (level >= DeepestLevel || type.Assembly.GetName().Name is not { } assembly
            || !(assembly.StartsWith("BackupXe", StringComparison.Ordinal) || assembly == "backupxe") || type.IsAbstract || type.IsInterface)
        {
            return null;
        }

        const BindingFlags Instance = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance;
        var constructor = type.GetConstructors(Instance)
            .Where(c => !c.IsPrivate && !c.GetParameters().Any(p => p.ParameterType == type))
            .OrderByDescending(c => c.IsPublic)
            .ThenByDescending(c => c.GetParameters().Length)
            .FirstOrDefault();
        if (constructor is null)
        {
            return type.IsValueType ? Activator.CreateInstance(type) : null;
        }

        var instance = constructor.Invoke([.. constructor.GetParameters().Select(p => Of(p.ParameterType, level + 1))]);
        foreach (var property in type.GetProperties(Instance))
        {
            if (property.SetMethod is { IsPrivate: false } setter && property.GetIndexParameters().Length == 0
                && !constructor.GetParameters().Any(p => string.Equals(p.Name, property.Name, StringComparison.OrdinalIgnoreCase)))
            {
                setter.Invoke(instance, [Of(property.PropertyType, level + 1)]);
            }
        }

        foreach (var add in type.GetMethods(Instance).Where(m => m.Name == "Add" && !m.IsPrivate && m.GetParameters().Length == 1))
        {
            add.Invoke(instance, [Of(add.GetParameters()[0].ParameterType, level + 1)]);
        }

        return instance;
    }

    private static bool ListLike(Type definition) =>
        definition == typeof(IReadOnlyList<>) || definition == typeof(IReadOnlyCollection<>) || definition == typeof(IEnumerable<>)
        || definition == typeof(List<>) || definition == typeof(IList<>) || definition == typeof(ICollection<>);

    private static object? Scalar(Type type) => type switch
    {
        _ when type == typeof(string) => "x",
        _ when type == typeof(int) => 7,
        _ when type == typeof(long) => 7L,
        _ when type == typeof(double) => 7.5,
        _ when type == typeof(decimal) => 7.5m,
        _ when type == typeof(bool) => true,
        _ when type == typeof(DateTime) => new DateTime(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc),
        _ when type == typeof(DateTimeOffset) => new DateTimeOffset(2025, 3, 3, 1, 0, 0, TimeSpan.Zero),
        _ when type == typeof(TimeSpan) => TimeSpan.FromSeconds(7),
        _ when type == typeof(Guid) => new Guid("00000000-0000-0000-0000-000000000007"),
        _ => null,
    };
}
