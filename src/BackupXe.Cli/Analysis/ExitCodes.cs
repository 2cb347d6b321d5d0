namespace BackupXe.Cli.Analysis;

/// <summary>What a script calling backupxe can rely on.</summary>
public static class ExitCodes
{
    /// <summary>Every input was read whole.</summary>
    public const int Success = 0;

    /// <summary>Nothing usable was read, or the command line was wrong.</summary>
    public const int NothingUsable = 1;

    /// <summary>A report was produced, but some input was damaged or unreadable: the result is partial.</summary>
    public const int Partial = 2;

    public static int For(IReadOnlyList<Core.Events.SourceStatus> statuses)
    {
        if (statuses.All(s => s.Unusable))
        {
            return NothingUsable;
        }

        return statuses.Any(s => s.Unusable || s.Problems.Count > 0) ? Partial : Success;
    }
}
