using System.Diagnostics.CodeAnalysis;
using Xunit;

namespace BackupXe.Tests.Support;

/// <summary>
/// The one way a test is skipped: it says why it did not run here and what runs it, so that a skipped line in a
/// test run is an instruction, not a shrug (SkipReasonTests keeps every skip going through here).
/// </summary>
internal static class Skipped
{
    public const string ToRunIt = "; to run it: ";

    /// <summary>Skips the running test; xunit ends it with the reason "<paramref name="why"/>; to run it: <paramref name="howToRun"/>".</summary>
    [DoesNotReturn]
    public static void Because(string why, string howToRun) => Assert.Skip(Reason(why, howToRun));

    /// <summary>Skips the running test unless <paramref name="condition"/> holds.</summary>
    public static void Unless([DoesNotReturnIf(false)] bool condition, string why, string howToRun)
    {
        if (!condition)
        {
            Because(why, howToRun);
        }
    }

    public static string Reason(string why, string howToRun)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(why);
        ArgumentException.ThrowIfNullOrWhiteSpace(howToRun);
        return why + ToRunIt + howToRun;
    }
}
