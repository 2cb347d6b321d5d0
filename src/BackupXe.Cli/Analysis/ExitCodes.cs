using BackupXe.Core.Analysis;

namespace BackupXe.Cli.Analysis;

/// <summary>What a script calling backupxe can rely on (README and docs/reliability.md list the same).</summary>
internal static class ExitCodes
{
    /// <summary>Every input was read whole.</summary>
    public const int Success = 0;

    /// <summary>Nothing usable was read, or the command line was wrong.</summary>
    public const int NothingUsable = 1;

    /// <summary>A report was produced, but some input was damaged or unreadable: the result is partial.</summary>
    public const int Partial = 2;

    public static int For(AnalysisFindings findings)
        => findings.NothingUsable ? NothingUsable : findings.Partial ? Partial : Success;

    /// <summary>The same rule for commands that read inputs without analysing them (<c>events</c>).</summary>
    public static int For(IReadOnlyCollection<Core.Events.SourceStatus> statuses)
        => Core.Events.SourceStatus.NoneUsable(statuses) ? NothingUsable : Core.Events.SourceStatus.AnyDamaged(statuses) ? Partial : Success;
}
