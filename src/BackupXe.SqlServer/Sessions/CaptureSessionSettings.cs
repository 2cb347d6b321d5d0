namespace BackupXe.SqlServer.Sessions;

/// <summary>The values a DBA would edit at the top of <c>backupxe-session.sql</c>.</summary>
/// <param name="SessionName">Any sysname to read; a regular identifier to create (see <see cref="Sessions.SessionName"/>).</param>
/// <param name="FilePath">
/// The event_file target's file name, ending in .xel. A bare name lands in the instance's LOG directory.
/// </param>
/// <param name="MaxFileSizeMb">Size of one file before the target rolls over.</param>
/// <param name="MaxRolloverFiles">How many files the target keeps.</param>
/// <param name="StartWithServer">STARTUP_STATE: ON for a permanent capture, OFF for one made for a single watch.</param>
public sealed record CaptureSessionSettings(
    string SessionName = Sessions.SessionName.Default,
    string FilePath = CaptureSessionSettings.DefaultFilePath,
    int MaxFileSizeMb = CaptureSessionSettings.DefaultMaxFileSizeMb,
    int MaxRolloverFiles = CaptureSessionSettings.DefaultMaxRolloverFiles,
    bool StartWithServer = true)
{
    public const string DefaultFilePath = "BackupXe.xel";
    public const int DefaultMaxFileSizeMb = 64;
    public const int DefaultMaxRolloverFiles = 4;

    /// <summary>Windows MAX_PATH, which the script's nvarchar(260) also holds.</summary>
    public const int MaxFilePathLength = 260;

    /// <summary>
    /// Every problem with these settings for a session BackupXe creates: those of <see cref="Validate"/>, and a name
    /// that is not a regular identifier (<see cref="Sessions.SessionName.IsCreatable"/>).
    /// </summary>
    public IReadOnlyList<string> ValidateForCreate()
    {
        var problems = Validate().ToList();
        if (Sessions.SessionName.IsValid(SessionName) && !Sessions.SessionName.IsCreatable(SessionName))
        {
            problems.Insert(0, $"{nameof(SessionName)} '{SessionName}' can be read but not created by BackupXe: a session it creates is named with "
                + $"{Sessions.SessionName.CreateRule}. Create this one yourself, or choose another name.");
        }

        return problems;
    }

    /// <summary>Every problem with these settings for a session BackupXe reads, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (!Sessions.SessionName.IsValid(SessionName))
        {
            problems.Add($"{nameof(SessionName)} '{Core.Rendering.TerminalText.Line(SessionName ?? string.Empty)}' is not valid: use {Sessions.SessionName.Rule}.");
        }

        if (string.IsNullOrWhiteSpace(FilePath))
        {
            problems.Add($"{nameof(FilePath)} is empty: give a .xel file name or full path.");
        }
        else if (FilePath.Length > MaxFilePathLength)
        {
            problems.Add($"{nameof(FilePath)} is {FilePath.Length} characters long; at most {MaxFilePathLength} fit.");
        }
        else if (FilePath.Any(char.IsControl))
        {
            problems.Add($"{nameof(FilePath)} contains a control character (a line break?).");
        }
        else if (!FilePath.EndsWith(".xel", StringComparison.OrdinalIgnoreCase))
        {
            problems.Add($"{nameof(FilePath)} '{FilePath}' must end in .xel, the extension the event_file target writes.");
        }

        if (MaxFileSizeMb < 1)
        {
            problems.Add($"{nameof(MaxFileSizeMb)} is {MaxFileSizeMb}; it must be at least 1.");
        }

        if (MaxRolloverFiles < 1)
        {
            problems.Add($"{nameof(MaxRolloverFiles)} is {MaxRolloverFiles}; it must be at least 1.");
        }

        return problems;
    }

    /// <exception cref="ArgumentException">The settings are not valid for creating the session; the message lists every problem.</exception>
    public void ThrowIfInvalidForCreate()
    {
        var problems = ValidateForCreate();
        if (problems.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", problems));
        }
    }
}
