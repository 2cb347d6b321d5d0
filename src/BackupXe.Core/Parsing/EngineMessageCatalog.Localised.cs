using System.Collections.Immutable;

namespace BackupXe.Core.Parsing;

// SQL Server localises a message's text to the server's language, never its number: the catalog's templates are the
// English ones, and a text in another language is read by its number, or by a wording a genuine output showed.
public static partial class EngineMessageCatalog
{
    /// <summary>
    /// Rows' wordings in other languages than English, each as a genuine output printed it (none is written from
    /// memory): a text in one of them is that row's message, found where a number is missing (a driver's record).
    /// </summary>
    internal static ImmutableArray<CatalogMessage> Localised { get; } = LocalisedRows();

    // A method, not a field: the other part's fields read it while the type initialises, in an order across files C# leaves open.
    private static ImmutableArray<CatalogMessage> LocalisedRows() =>
    [
        // realworld4 V23: dbatools' record of a German server's SqlError.
        new(3201, 16, MessageFamily.Failure, "Das Sicherungsmedium \"%ls\" kann nicht geöffnet werden. Betriebssystemfehler %ls.", CatalogSource.GenuineOutput, Language: "German"),
    ];

    /// <summary>
    /// How <paramref name="text"/> stands to the English template of error <paramref name="number"/>: null when it reads
    /// as that template or holds its first words (or the catalog has no row), else the language of the genuine wording it reads as, or an empty
    /// string when it reads as none (a language the catalog holds no wording of).
    /// </summary>
    internal static string? OtherWordingOf(int number, string text)
    {
        if (Find(number) is not { } row)
        {
            return null;
        }

        // A text that holds the template's first words is English, of another version or wrapped by another program.
        var plain = Normalised(text.Trim());
        if (row.Matches(plain) || (!row.Pieces.IsEmpty && plain.Contains(row.Pieces[0].Trim(), StringComparison.Ordinal)))
        {
            return null;
        }

        foreach (var wording in Localised)
        {
            if (wording.Number == number && wording.Matches(plain))
            {
                return wording.Language;
            }
        }

        return string.Empty;
    }

    /// <summary>True when error <paramref name="number"/>'s English template carries an operating system error (3201's "Operating system error %ls").</summary>
    internal static bool CarriesOsError(int number)
        => Find(number)?.Template is { } template
            && (template.Contains("Operating system error %", StringComparison.Ordinal) || template.Contains("failed: %ls", StringComparison.Ordinal)
                || template.Contains(":\" %ls", StringComparison.Ordinal) || template.Contains("returned error %ls", StringComparison.Ordinal));
}
