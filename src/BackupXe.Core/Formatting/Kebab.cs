using System.Collections.Frozen;

namespace BackupXe.Core.Formatting;

/// <summary>The report spells enum values in kebab-case (copy-data, buffer-starved) in every format.</summary>
public static class Kebab
{
    public static string Of<TEnum>(TEnum value) where TEnum : struct, Enum
        => Spellings<TEnum>.Named.TryGetValue(value, out var spelled) ? spelled : Spell(value);

    private static string Spell<TEnum>(TEnum value) where TEnum : struct, Enum
        => System.Text.Json.JsonNamingPolicy.KebabCaseLower.ConvertName(value.ToString());

    // Spelled once per named value: a report spells a few per operation, and naming an enum value costs a lookup of its name.
    private static class Spellings<TEnum> where TEnum : struct, Enum
    {
        public static readonly FrozenDictionary<TEnum, string> Named =
            Enum.GetValues<TEnum>().Distinct().ToFrozenDictionary(value => value, Spell);
    }
}
