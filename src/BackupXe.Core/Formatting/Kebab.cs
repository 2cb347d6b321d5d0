namespace BackupXe.Core.Formatting;

/// <summary>The report spells enum values in kebab-case (copy-data, buffer-starved) in every format.</summary>
public static class Kebab
{
    public static string Of<TEnum>(TEnum value) where TEnum : struct, Enum
        => System.Text.Json.JsonNamingPolicy.KebabCaseLower.ConvertName(value.ToString());
}
