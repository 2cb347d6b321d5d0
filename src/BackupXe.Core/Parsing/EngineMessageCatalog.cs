using System.Collections.Immutable;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>What a backup or restore message of the catalog tells.</summary>
internal enum MessageFamily
{
    /// <summary>How far the copy is: 3211 "N percent processed.", 4035 "Processed N pages ...".</summary>
    Progress,

    /// <summary>The operation ended well: 3014 "... successfully processed ...".</summary>
    Completion,

    /// <summary>The ERRORLOG's record of a finished backup or restore (18264 and its siblings).</summary>
    History,

    /// <summary>An error that fails the command, or the generic 3013 that closes it.</summary>
    Failure,

    /// <summary>A warning the operation survives, which may explain its time (833, long I/O).</summary>
    Warning,

    /// <summary>
    /// The client stopped waiting: its driver's command time-out expired (SqlClient's error -2). Not SQL Server's message,
    /// but what ends a command from the client's side, so the readers must tell it from a failure inside the server.
    /// </summary>
    ClientTimeout,

    /// <summary>
    /// A statement refused because of the database's state (5052, "... while a database is in the Restoring state."): no
    /// operation of its own, but the state tells what left the database so.
    /// </summary>
    State,

    /// <summary>
    /// An error outside any backup or restore that stopped the work before one started: the database could not be used
    /// (924: in single-user mode, its one connection held; 916: the login has no access to it; 911: there is none of that
    /// name), or the work itself could not run (229: a permission on an object, such as EXECUTE on the procedure that
    /// runs the backups, was denied). No BACKUP or RESTORE ran.
    /// </summary>
    Prevented,
}

/// <summary>Where the text template of a catalog row was checked (docs/message-catalog.md).</summary>
internal enum CatalogSource
{
    /// <summary>Read on Microsoft's list of database engine errors for this project.</summary>
    MicrosoftPage,

    /// <summary>Read in a genuine output kept as a fixture (its SOURCES.md): the exact wording SQL Server printed.</summary>
    GenuineOutput,
}

/// <summary>
/// One message SQL Server writes about a backup or restore: its number, usual severity, and text template with the
/// engine's placeholders (<c>%ls</c>, <c>%d</c>, <c>%I64d</c> ...).
/// </summary>
/// <param name="DatabaseArgument">Which of the template's placeholders (from 0) is the database the message names, when one is.</param>
/// <param name="Scope">The scope the message names for the command it refuses (3035: a differential), when it names one.</param>
/// <param name="Language">The language of a wording SQL Server printed in another language than English; null for the English row.</param>
/// <param name="DatabaseWhenOpening">
/// The opening the template's first placeholder must have for <paramref name="DatabaseArgument"/> to name the operation's
/// database: 262 names the database its BACKUP statement backs up, but for a refused CREATE DATABASE (a RESTORE of a new
/// database) the database where the permission is checked, master.
/// </param>
internal sealed record CatalogMessage(int Number, int Severity, MessageFamily Family, string Template, CatalogSource Source, int? DatabaseArgument = null, OperationScope? Scope = null, string? Language = null, string? DatabaseWhenOpening = null)
{
    /// <summary>The template's opening text, when it opens with text (not a placeholder).</summary>
    public string? Opening => Template.StartsWith('%') || Pieces.IsEmpty ? null : Pieces[0];

    /// <summary>The template's literal text between its placeholders, in order.</summary>
    public ImmutableArray<string> Pieces { get; } = TemplatePieces.Of(Template);

    /// <summary>
    /// True when <paramref name="text"/> reads as this template: it opens with the template's first literal piece (when
    /// the template opens with one) and holds the other pieces in order. Versions differ in their closing sentences, so
    /// the last piece of a long template is not required to end the text.
    /// </summary>
    public bool Matches(ReadOnlySpan<char> text) => Locate(text) is not null;

    /// <summary>
    /// The database <paramref name="text"/> names at the template's <see cref="DatabaseArgument"/>; null when the row
    /// names none or the text does not read as the template.
    /// </summary>
    public string? DatabaseIn(string text)
    {
        if (DatabaseArgument is not { } argument || Locate(text) is not { } found)
        {
            return null;
        }

        if (DatabaseWhenOpening is { } opening && !Argument(text, found, 0).StartsWith(opening, StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        var name = Argument(text, found, argument);
        return name.Length > 0 ? name : null;
    }

    /// <summary>The text <paramref name="text"/> has at placeholder <paramref name="k"/> (from 0), trimmed; null when it does not read as the template.</summary>
    public string? ArgumentIn(string text, int k) => Locate(text) is { } found ? Argument(text, found, k) : null;

    // The text of placeholder k, trimmed, given where the literal pieces were found.
    private string Argument(string text, (int Start, int End)[] found, int k)
    {
        // Placeholder k lies after piece k - 1 and before piece k when the template opens with a placeholder, after
        // piece k and before piece k + 1 when it opens with text.
        var before = Template.StartsWith('%') ? k - 1 : k;
        var after = before + 1;
        var start = before < 0 ? 0 : found[before].End;
        var end = after < found.Length ? found[after].Start : text.Length;
        return end > start ? text[start..end].Trim() : string.Empty;
    }

    // Where each literal piece starts and ends in the text, or null when the pieces are not all there in order.
    private (int Start, int End)[]? Locate(ReadOnlySpan<char> text)
    {
        var pieces = Pieces;
        if (pieces.IsEmpty)
        {
            return null;
        }

        var opensWithText = !Template.StartsWith('%');
        var spans = new (int Start, int End)[pieces.Length];
        var at = 0;
        for (var i = 0; i < pieces.Length; i++)
        {
            var piece = pieces[i];
            var found = text[at..].IndexOf(piece, StringComparison.Ordinal);

            // A record that quotes the message may drop its closing period (dbatools' SqlError line of a 916).
            if (found < 0 && i == pieces.Length - 1 && piece.Length > 1 && piece[^1] == '.' && text.EndsWith(piece.AsSpan(0, piece.Length - 1), StringComparison.Ordinal)
                && text.Length - (piece.Length - 1) >= at)
            {
                found = text.Length - (piece.Length - 1) - at;
                piece = piece[..^1];
            }

            if (found < 0 || (i == 0 && opensWithText && found != 0))
            {
                return null;
            }

            spans[i] = (at + found, at + found + piece.Length);
            at = spans[i].End;
        }

        return spans;
    }
}

/// <summary>
/// The catalog of the backup and restore messages SQL Server writes, keyed by message number, with each one's text
/// template and where that was checked: docs/message-catalog.md lists it with its sources. The readers match a number
/// first (an <c>Error: N</c> or <c>Msg N</c> header, Agent's <c>(Error N)</c>) and a template second (a line that
/// carries no number, such as PowerShell's error record); a message the readers act on has a row here, and a test
/// holds them to it.
/// </summary>
public static partial class EngineMessageCatalog
{
    /// <summary>Every row, by number.</summary>
    internal static ImmutableArray<CatalogMessage> All { get; } = Rows();

    private static readonly FrozenNumbers ByNumber = new(All);

    /// <summary>The row of <paramref name="number"/>; null when the catalog has none.</summary>
    internal static CatalogMessage? Find(int number) => ByNumber.Find(number);

    /// <summary>
    /// The row whose template <paramref name="text"/> reads as; null when none does. Only for text without a number:
    /// a few dozen templates, each rejected on its first piece, so it is kept off the per-line path of a log.
    /// </summary>
    internal static CatalogMessage? Identify(ReadOnlySpan<char> text)
    {
        text = Normalised(text.Trim());
        foreach (var row in All)
        {
            if (row.Matches(text))
            {
                return row;
            }
        }

        return null;
    }

    /// <summary>
    /// The text as the templates are written: a run of white space (a line break where a page or a console wrapped the
    /// message, spaces a page doubled) is one space, and a typographic single quote that a page rendered is the
    /// engine's straight one. The text is copied only when it holds either.
    /// </summary>
    internal static ReadOnlySpan<char> Normalised(ReadOnlySpan<char> text)
    {
        if (text.IndexOfAny(Rendered) < 0 && text.IndexOf("  ", StringComparison.Ordinal) < 0)
        {
            return text;
        }

        var copy = new System.Text.StringBuilder(text.Length);
        foreach (var c in text)
        {
            var plain = c is '\u2018' or '\u2019' ? '\'' : char.IsWhiteSpace(c) ? ' ' : c;
            if (plain == ' ' && copy.Length > 0 && copy[^1] == ' ')
            {
                continue;
            }

            copy.Append(plain);
        }

        return copy.ToString();
    }

    private static readonly System.Buffers.SearchValues<char> Rendered = System.Buffers.SearchValues.Create("\t\r\n\u2018\u2019");

    /// <summary>
    /// The database an error of the catalog names in its text ("... for database \"Archive_Tables\" ...", "... other than the
    /// existing 'AdventureWorks2012' database."); null when its row names none or the text is not the row's.
    /// </summary>
    public static string? DatabaseOf(int number, string? text)
        => text is null || Find(number) is not { DatabaseArgument: not null } row ? null : row.DatabaseIn(Normalised(text.Trim()).ToString());

    /// <summary>
    /// The permission a 262 says was denied ("BACKUP DATABASE", "CREATE DATABASE"), read where its row's
    /// <see cref="CatalogMessage.DatabaseWhenOpening"/> reads it; null for a text that is not the row's.
    /// </summary>
    public static string? DeniedPermission(string? text)
        => text is null ? null : Find(PermissionDenied)!.ArgumentIn(Normalised(text.Trim()).ToString(), 0);

    /// <summary>"%ls permission denied in database '%.*ls'.": the statement's permission, then the database where it was checked.</summary>
    public const int PermissionDenied = 262;

    /// <summary>True when the catalog's row for <paramref name="number"/> names a database (at one of its placeholders).</summary>
    public static bool NamesDatabase(int number) => Find(number)?.DatabaseArgument is not null;

    /// <summary>True when <paramref name="number"/> is a failure of a backup or restore in the catalog.</summary>
    public static bool IsFailure(int number) => Find(number)?.Family == MessageFamily.Failure;

    /// <summary>True when <paramref name="number"/> is an error of the catalog that stopped the work before any backup or restore started (924, 916, 911).</summary>
    public static bool PreventsOperation(int number) => Find(number)?.Family == MessageFamily.Prevented;

    /// <summary>True when <paramref name="number"/> ends the work it came from: a failure of a backup or restore, or an error that stopped one before it started.</summary>
    public static bool StopsTheWork(int number) => Find(number)?.Family is MessageFamily.Failure or MessageFamily.Prevented;

    /// <summary>The number the client's driver gives its own command time-out (SqlClient's SqlError.Number).</summary>
    public const int ClientTimedOut = -2;

    /// <summary>"The backup or restore was aborted.": SQL Server's own end of a command the client cancelled or that was stopped.</summary>
    public const int Aborted = 3204;

    // What 3271 says, in its operating system error's place, of a backup to URL whose blob is already there (realworld4
    // V09): the option that would overwrite it.
    private const string BlobExists = "exists on the remote endpoint, and WITH FORMAT was not specified";

    /// <summary>True when a 3271's <paramref name="text"/> is a backup to URL refused because its blob exists: nothing was written.</summary>
    internal static bool RefusesExistingBlob(string? text) => text is not null && Normalised(text).Contains(BlobExists, StringComparison.Ordinal);

    /// <summary>The scope error <paramref name="number"/> names for the command it refuses; null when it names none.</summary>
    public static OperationScope? ScopeOf(int number) => Find(number)?.Scope;

    /// <summary>
    /// A failure of the catalog quoted inside another program's record, with no number (dbatools' <c>WARNING: [time][Cmdlet]
    /// Failure on S | Cannot open backup device '...'. Operating system error 32(...).</c>): the row, and where its text
    /// starts. Only rows that open with text of their own are looked for, and the rest of the template must follow.
    /// </summary>
    internal static (CatalogMessage Row, int Start)? Quoted(string text)
    {
        // One search for every opening at once: most records (a percent line after VERBOSE:) hold none.
        var rest = text.AsSpan();
        var offset = 0;
        while (rest.IndexOfAny(QuotableOpenings) is var at and >= 0)
        {
            foreach (var row in QuotableFailures)
            {
                if (rest[at..].StartsWith(row.Opening, StringComparison.Ordinal) && row.Matches(Normalised(rest[at..].Trim())))
                {
                    return (row, offset + at);
                }
            }

            offset += at + 1;
            rest = rest[(at + 1)..];
        }

        return null;
    }

    // Openings of a dozen characters or more: shorter ones ("Read on \"") would be found in a tool's own words.
    private static readonly ImmutableArray<CatalogMessage> QuotableFailures =
        [.. All.Concat(LocalisedRows()).Where(r => r.Family is MessageFamily.Failure or MessageFamily.Prevented && r.Opening is { Length: >= 12 })];

    private static readonly System.Buffers.SearchValues<string> QuotableOpenings =
        System.Buffers.SearchValues.Create([.. QuotableFailures.Select(r => r.Opening!)], StringComparison.Ordinal);

    private static ImmutableArray<CatalogMessage> Rows()
    {
        const CatalogSource Page = CatalogSource.MicrosoftPage;
        const CatalogSource Genuine = CatalogSource.GenuineOutput;
        CatalogMessage[] rows =
        [
            // Progress and completion: the client's lines of every backup and restore.
            new(3211, 10, MessageFamily.Progress, "%d percent processed.", Genuine),
            new(4035, 10, MessageFamily.Progress, "Processed %I64d pages for database '%ls', file '%ls' on file %d.", Genuine),
            new(3014, 10, MessageFamily.Completion, "%hs successfully processed %I64d pages in %d.%03d seconds (%d.%03d MB/sec).", Page),

            // The ERRORLOG's history records (default logging, no trace flag).
            new(18264, 10, MessageFamily.History, "Database backed up. Database: %s, creation date(time): %s(%s), pages dumped: %I64d, first LSN: %s, last LSN: %s, number of dump devices: %d, device information: (%s).", Genuine),
            new(18265, 10, MessageFamily.History, "Log was backed up. Database: %s, creation date(time): %s(%s), first LSN: %s, last LSN: %s, number of dump devices: %d, device information: (%s).", Page),
            new(18267, 10, MessageFamily.History, "Database was restored: Database: %s, creation date(time): %s(%s), first LSN: %s, last LSN: %s, number of dump devices: %d, device information: (%s).", Genuine),
            new(18268, 10, MessageFamily.History, "Log was restored. Database: %s, creation date(time): %s(%s), first LSN: %s, last LSN: %s, number of dump devices: %d, device information: (%s).", Page),
            new(18269, 10, MessageFamily.History, "Database file was restored. Database: %s, creation date(time): %s(%s), file list: (%s), number of dump devices: %d, device information: (%s).", Page),
            new(18270, 10, MessageFamily.History, "Database differential changes were backed up. Database: %s, creation date(time): %s(%s), pages dumped: %I64d, first LSN: %s, last LSN: %s, full backup LSN: %s, number of dump devices: %d, device information: (%s).", Page),
            new(18271, 10, MessageFamily.History, "Database changes were restored. Database: %s, creation date(time): %s(%s), first LSN: %s, last LSN: %s, number of dump devices: %d, device information: (%s).", Page),

            // Failures: the generic ending, then the errors that name the cause.
            new(PermissionDenied, 16, MessageFamily.Failure, "%ls permission denied in database '%.*ls'.", Page, DatabaseArgument: 1, DatabaseWhenOpening: "BACKUP "),
            new(3013, 16, MessageFamily.Failure, "%hs is terminating abnormally.", Page),
            new(3041, 16, MessageFamily.Failure, "BACKUP failed to complete the command %.*ls. Check the backup application log for detailed messages.", Page),
            new(3043, 16, MessageFamily.Failure, "BACKUP '%ls' detected an error on page (%d:%d) in file '%ls'.", Page),
            new(3035, 16, MessageFamily.Failure, "Cannot perform a differential backup for database \"%ls\", because a current database backup does not exist. Perform a full database backup by reissuing BACKUP DATABASE, omitting the WITH DIFFERENTIAL option.", Genuine, DatabaseArgument: 0, Scope: OperationScope.Differential),
            new(3078, 16, MessageFamily.Failure, "The file name \"%ls\" is invalid as a backup device name for the specified device type. Reissue the BACKUP statement with a valid file name and device type.", Genuine),
            new(3101, 16, MessageFamily.Failure, "Exclusive access could not be obtained because the database is in use.", Page),
            new(3117, 16, MessageFamily.Failure, "The log or differential backup cannot be restored because no files are ready to rollforward.", Page),
            new(3153, 16, MessageFamily.Failure, "The database is already fully recovered.", Page),
            new(3154, 16, MessageFamily.Failure, "The backup set holds a backup of a database other than the existing '%ls' database.", Page, DatabaseArgument: 0),
            new(3159, 16, MessageFamily.Failure, "The tail of the log for the database \"%ls\" has not been backed up.", Page, DatabaseArgument: 0),
            new(3204, 16, MessageFamily.Failure, "The backup or restore was aborted.", Genuine),
            new(3168, 16, MessageFamily.Failure, "The backup of the system database on the device %ls cannot be restored because it was created by a different version of the server (%ls) than this server (%ls).", Genuine),
            new(3183, 16, MessageFamily.Failure, "RESTORE detected an error on page (%d:%d) in database \"%ls\" as read from the backup set.", Page, DatabaseArgument: 2),
            new(3201, 16, MessageFamily.Failure, "Cannot open backup device '%ls'. Operating system error %ls.", Page),
            new(3202, 16, MessageFamily.Failure, "Write on \"%ls\" failed: %ls", Page),
            new(3203, 16, MessageFamily.Failure, "Read on \"%ls\" failed: %ls", Page),
            new(3241, 16, MessageFamily.Failure, "The media family on device '%ls' is incorrectly formed. SQL Server cannot process this media family.", Page),
            new(3257, 16, MessageFamily.Failure, "There is insufficient free space on disk volume '%ls' to create the database.", Page),
            new(3266, 16, MessageFamily.Failure, "The backup data at the end of \"%ls\" is incorrectly formatted.", Page),
            new(3271, 16, MessageFamily.Failure, "A nonrecoverable I/O error occurred on file \"%ls:\" %ls.", Page),
            new(4208, 16, MessageFamily.Failure, "The statement %hs is not allowed while the recovery model is SIMPLE. Use BACKUP DATABASE or change the recovery model using ALTER DATABASE.", Page),
            new(4214, 16, MessageFamily.Failure, "BACKUP LOG cannot be performed because there is no current database backup.", Page),
            new(4305, 16, MessageFamily.Failure, "The log in this backup set begins at LSN %.*ls, which is too recent to apply to the database.", Page),
            new(4326, 16, MessageFamily.Failure, "The log in this backup set terminates at LSN %.*ls, which is too early to apply to the database.", Page),
            new(5159, 24, MessageFamily.Failure, "Operating system error %.*ls on file \"%.*ls\" during %ls.", Page),
            new(18204, 16, MessageFamily.Failure, "%hs: Backup device '%ls' failed to %ls. Operating system error %ls.", Page),
            new(18210, 16, MessageFamily.Failure, "%hs: %hs failure on backup device '%ls'. Operating system error %ls.", Page),
            new(823, 24, MessageFamily.Failure, "The operating system returned error %ls to SQL Server during a %S_MSG at offset %#016I64x in file '%ls'.", Page),
            new(845, 17, MessageFamily.Failure, "Time-out occurred while waiting for buffer latch type %d for page %S_PGID, database ID %d.", Genuine),

            // Errors outside any backup or restore that stop the work before one starts (the database cannot be used), as
            // an Ola Hallengren job meets them (realworld4 V28, V29) and a dbatools run reports them.
            new(229, 14, MessageFamily.Prevented, "The %ls permission was denied on the object '%.*ls', database '%.*ls', schema '%.*ls'.", Page),
            new(911, 16, MessageFamily.Prevented, "Database '%.*ls' does not exist. Make sure that the name is entered correctly.", Page, DatabaseArgument: 0),
            new(916, 14, MessageFamily.Prevented, "The server principal \"%.*ls\" is not able to access the database \"%.*ls\" under the current security context.", Page, DatabaseArgument: 1),
            new(924, 14, MessageFamily.Prevented, "Database '%.*ls' is already open and can only have one user at a time.", Page, DatabaseArgument: 0),

            // The client's driver, not SQL Server: its command time-out, in System.Data.SqlClient's ("Timeout expired.") and
            // Microsoft.Data.SqlClient's ("Execution Timeout Expired.") wording, which differ only before the second sentence.
            new(ClientTimedOut, 11, MessageFamily.ClientTimeout, "%hs The timeout period elapsed prior to completion of the operation or the server is not responding.", Genuine),

            // A warning that does not fail the operation but explains where its time went.
            new(833, 10, MessageFamily.Warning, "SQL Server has encountered %d occurrence(s) of I/O requests taking longer than %d seconds to complete on file [%ls] in database [%ls] (%d).", Page),

            // A statement refused by the database's state: a database RESTORING was left so by a restore (realworld4 V27).
            new(5052, 16, MessageFamily.State, "ALTER DATABASE is not permitted while a database is in the %ls state.", Genuine),
        ];

        return [.. rows.OrderBy(r => r.Number)];
    }

    // A handful of rows: a sorted array searched by halves, built once.
    private sealed class FrozenNumbers(ImmutableArray<CatalogMessage> rows)
    {
        private readonly int[] _numbers = [.. rows.Select(r => r.Number)];

        public CatalogMessage? Find(int number)
        {
            var at = Array.BinarySearch(_numbers, number);
            return at >= 0 ? rows[at] : null;
        }
    }
}

/// <summary>Splits an engine template at its placeholders (<c>%ls</c>, <c>%.*ls</c>, <c>%I64d</c>, <c>%S_PGID</c> ...).</summary>
internal static class TemplatePieces
{
    public static ImmutableArray<string> Of(string template)
    {
        var pieces = ImmutableArray.CreateBuilder<string>();
        var start = 0;
        var i = 0;
        while (i < template.Length)
        {
            if (template[i] != '%')
            {
                i++;
                continue;
            }

            Add(pieces, template[start..i]);
            i = PlaceholderEnd(template, i + 1);
            start = i;
        }

        Add(pieces, template[start..]);
        return pieces.ToImmutable();
    }

    private static void Add(ImmutableArray<string>.Builder pieces, string piece)
    {
        if (piece.Length > 0)
        {
            pieces.Add(piece);
        }
    }

    // Flags, width and precision, an I64 size, then the type: "ls", "hs", "d", "u", "x", "s", or "S_" and its name.
    private static int PlaceholderEnd(string template, int i)
    {
        while (i < template.Length && template[i] is '-' or '#' or '.' or '*' or (>= '0' and <= '9'))
        {
            i++;
        }

        if (string.CompareOrdinal(template, i, "I64", 0, 3) == 0)
        {
            i += 3;
        }

        if (string.CompareOrdinal(template, i, "S_", 0, 2) == 0)
        {
            i += 2;
            while (i < template.Length && char.IsAsciiLetterUpper(template[i]))
            {
                i++;
            }

            return i;
        }

        if (i < template.Length && template[i] is 'l' or 'h')
        {
            i++;
        }

        return Math.Min(i + 1, template.Length);
    }
}
