using System.Text.Json;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// A property whose value may be missing, written as JSON null: every BackupXe JSON document keeps its properties when
/// a value is unknown rather than leaving them out (docs/json-schema.md). Pre-encoded names for the report's hot path,
/// plain names for the smaller documents.
/// </summary>
public static class JsonWriterNulls
{
    public static void WriteNumberOrNull(this Utf8JsonWriter writer, JsonEncodedText name, int? value)
    {
        if (value is { } number)
        {
            writer.WriteNumber(name, number);
        }
        else
        {
            writer.WriteNull(name);
        }
    }

    public static void WriteNumberOrNull(this Utf8JsonWriter writer, JsonEncodedText name, long? value)
    {
        if (value is { } number)
        {
            writer.WriteNumber(name, number);
        }
        else
        {
            writer.WriteNull(name);
        }
    }

    public static void WriteNumberOrNull(this Utf8JsonWriter writer, JsonEncodedText name, double? value)
    {
        if (value is { } number)
        {
            writer.WriteNumber(name, number);
        }
        else
        {
            writer.WriteNull(name);
        }
    }

    public static void WriteBooleanOrNull(this Utf8JsonWriter writer, JsonEncodedText name, bool? value)
    {
        if (value is { } flag)
        {
            writer.WriteBoolean(name, flag);
        }
        else
        {
            writer.WriteNull(name);
        }
    }

    public static void WriteNumberOrNull(this Utf8JsonWriter writer, string name, long? value)
        => writer.WriteNumberOrNull(JsonEncodedText.Encode(name), value);

    public static void WriteNumberOrNull(this Utf8JsonWriter writer, string name, double? value)
        => writer.WriteNumberOrNull(JsonEncodedText.Encode(name), value);

    public static void WriteStringOrNull(this Utf8JsonWriter writer, string name, string? value)
    {
        if (value is null)
        {
            writer.WriteNull(name);
        }
        else
        {
            writer.WriteString(name, value);
        }
    }
}
