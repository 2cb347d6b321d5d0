using System.Collections;
using System.Reflection;
using BackupXe.Core.Reporting;

namespace BackupXe.Tests.Rendering.Support;

/// <summary>
/// A value of a report type with every public property set, found by reflection: a property added to any report
/// type is set here without anyone editing this file, so the JSON of such a value shows whether a writer knows it.
/// </summary>
internal static class FullyPopulated
{
    public static T Of<T>() => (T)Of(typeof(T));

    public static object Of(Type type)
    {
        if (Nullable.GetUnderlyingType(type) is { } underlying)
        {
            return Of(underlying);
        }

        if (type.IsEnum)
        {
            return Enum.GetValues(type).GetValue(0)!;
        }

        if (type.IsGenericType && type.GetGenericTypeDefinition() == typeof(IReadOnlyList<>))
        {
            var item = type.GetGenericArguments()[0];
            var list = (IList)Activator.CreateInstance(typeof(List<>).MakeGenericType(item))!;
            list.Add(Of(item));
            return list;
        }

        var scalar = Type.GetTypeCode(type) switch
        {
            TypeCode.String => "x",
            TypeCode.Int32 => 7,
            TypeCode.Int64 => 7L,
            TypeCode.Double => 7.5,
            TypeCode.Boolean => true,
            TypeCode.DateTime => new DateTime(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc),
            _ => (object?)null,
        };
        if (scalar is not null)
        {
            return scalar;
        }

        if (!type.IsClass || (type.Assembly != typeof(OperationReport).Assembly))
        {
            throw new NotSupportedException($"No fully populated value for {type}: add one here, and check that the report's JSON writer writes it as the serializer does.");
        }

        // A record: its widest public constructor, then every public setter (init ones included).
        var constructor = type.GetConstructors().OrderByDescending(c => c.GetParameters().Length).First();
        var instance = constructor.Invoke([.. constructor.GetParameters().Select(p => Of(p.ParameterType))]);
        foreach (var property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (property.SetMethod is { IsPublic: true } && property.GetIndexParameters().Length == 0)
            {
                property.SetValue(instance, Of(property.PropertyType));
            }
        }

        return instance;
    }
}
