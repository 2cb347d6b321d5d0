using System.CommandLine;

namespace BackupXe.Cli.Commands;

/// <summary>
/// An option that takes one of a few words (a format, a transport): matched in any case, as SQL Server's own keywords
/// are (<c>-f HTML</c>), and handed on in the spelling the code compares with; a word that is none of them is one line
/// naming the nearest.
/// </summary>
internal static class Choices
{
    public static void OneOf<T>(Option<T> option, params string[] values)
        where T : class?
    {
        // Listed in --help and offered to shell completion, as the parser's own restriction does.
        option.CompletionSources.Add(values);
        var fallback = option.DefaultValueFactory;
        option.CustomParser = result =>
        {
            if (result.Tokens.Count == 0)
            {
                return fallback is null ? null : fallback(result);
            }

            // A word that is none of them is left as typed: the validator below refuses it while parsing.
            var typed = result.Tokens[^1].Value;
            return (T)(object)(Known(values, typed) ?? typed);
        };

        // A validator, not the parser: the parser runs when a value is first read, after the command line was accepted.
        option.Validators.Add(result =>
        {
            foreach (var token in result.Tokens)
            {
                if (Known(values, token.Value) is null)
                {
                    result.AddError($"{option.Name} '{token.Value}' is not one of {string.Join(", ", values)}{UsageErrors.DidYouMean(token.Value, values)}");
                }
            }
        });
    }

    private static string? Known(string[] values, string typed)
        => values.FirstOrDefault(value => string.Equals(value, typed, StringComparison.OrdinalIgnoreCase));
}
