using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.Parsing;

/// <summary>Where a backup is written or a restore reads from, as the command names it.</summary>
public enum DeviceKind
{
    Disk,
    Url,
    Tape,

    /// <summary>A logical backup device (sp_addumpdevice) named without DISK/URL/TAPE.</summary>
    Logical,

    /// <summary>A virtual device (a third-party backup tool's VDI; msdb device_type 7).</summary>
    Virtual,
}

/// <summary>One stripe: the target kind and its path; <see cref="Path"/> is null when the command passes a variable.</summary>
public sealed record BackupDevice(DeviceKind Kind, string? Path, bool IsMirror = false);

/// <summary>
/// The options of one BACKUP or RESTORE statement that bear on its speed or its identity. Null means the
/// command did not say (the server default applies); flags that exist only when written are plain bools.
/// </summary>
public sealed record BackupCommand
{
    public required OperationKind Kind { get; init; }

    /// <summary>Database, Log or Differential (from WITH DIFFERENTIAL); File when FILE/FILEGROUP clauses limit a database backup.</summary>
    public required OperationScope Scope { get; init; }

    /// <summary>True for RESTORE VERIFYONLY / HEADERONLY / FILELISTONLY / LABELONLY: a read of the media, not a restore.</summary>
    public bool IsVerifyOnly { get; init; }

    /// <summary>The database name, or null when the command passes it in a variable.</summary>
    public string? Database { get; init; }

    public IReadOnlyList<BackupDevice> Devices { get; init; } = [];
    public int? BufferCount { get; init; }
    public long? MaxTransferSizeBytes { get; init; }
    public int? BlockSizeBytes { get; init; }

    /// <summary>true for COMPRESSION, false for NO_COMPRESSION, null when the server default applied.</summary>
    public bool? Compression { get; init; }

    /// <summary>COMPRESSION (ALGORITHM = QAT_DEFLATE) on SQL Server 2022+.</summary>
    public string? CompressionAlgorithm { get; init; }

    public bool CopyOnly { get; init; }

    /// <summary>true for CHECKSUM, false for NO_CHECKSUM.</summary>
    public bool? Checksum { get; init; }

    public bool Encryption { get; init; }
    public string? EncryptionAlgorithm { get; init; }

    /// <summary>Options given through variables (BUFFERCOUNT = @n): their values are not in the text.</summary>
    public IReadOnlyList<string> VariableOptions { get; init; } = [];

    /// <summary>
    /// What in the options SQL Server would not take as written: a value that is no integer constant, one outside the
    /// range the BACKUP page gives, an option given twice. Each is one sentence; the value concerned is not used.
    /// </summary>
    public IReadOnlyList<string> Problems { get; init; } = [];

    /// <summary>The stripes actually written (mirrors are copies of them).</summary>
    public int StripeCount => Devices.Count(d => !d.IsMirror);
}

/// <summary>
/// Reads the options of a BACKUP or RESTORE statement from its text, as Ola Hallengren's CommandLog and job
/// output, SQL Agent steps and captured sql_text hold it. Tolerant: comments, any case, N'' literals with
/// doubled quotes, [bracketed] and "quoted" names, variables, other statements before it (EXECUTE AS ...;),
/// options it does not know (skipped to the next comma).
/// </summary>
public static class BackupCommandParser
{
    /// <summary>The first BACKUP/RESTORE DATABASE/LOG statement in <paramref name="sql"/>, or null when there is none.</summary>
    public static BackupCommand? Parse(string sql)
    {
        var tokens = SqlTokenizer.Tokenize(sql);
        for (var i = 0; i + 1 < tokens.Count; i++)
        {
            if ((tokens[i].Is("BACKUP") || tokens[i].Is("RESTORE")) && (i == 0 || !tokens[i - 1].IsSymbol('.')))
            {
                var kind = tokens[i].Is("BACKUP") ? OperationKind.Backup : OperationKind.Restore;
                if (new Reader(tokens, i + 1).Statement(kind) is { } command)
                {
                    return command;
                }
            }
        }

        return null;
    }

    /// <summary>The values the BACKUP page allows for one option, and how a value outside them is said.</summary>
    private sealed record OptionRange(Func<long, string?> Problem);

    /// <summary>The ranges of BUFFERCOUNT, MAXTRANSFERSIZE and BLOCKSIZE (docs/backup-internals.md#data-path-readers-buffers-writers).</summary>
    private static class OptionRanges
    {
        private const long TransferStep = 65536;

        public static readonly OptionRange BufferCount = new(value => value is >= 1 and <= ServerRanges.MaxBufferCount
            ? null
            : string.Create(CultureInfo.InvariantCulture, $"BUFFERCOUNT is a number of buffers, from 1 to {ServerRanges.MaxBufferCount}"));

        public static readonly OptionRange BlockSize = new(value => value is >= 512 and <= 65536 && long.IsPow2(value)
            ? null
            : "BLOCKSIZE is 512, 1024, 2048, 4096, 8192, 16384, 32768 or 65536 bytes");

        /// <summary>A multiple of 64 KB up to 4 MB; to an S3 URL (SQL Server 2022) from 5 MB to 20 MB.</summary>
        public static OptionRange MaxTransferSize(IReadOnlyList<BackupDevice> devices)
        {
            var s3 = devices.Count > 0 && devices.All(d => d.Kind == DeviceKind.Url && d.Path is { } path && path.StartsWith("s3://", StringComparison.OrdinalIgnoreCase));
            var (low, high) = s3 ? (5L << 20, 20L << 20) : (TransferStep, 4L << 20);
            return new(value => value >= low && value <= high && value % TransferStep == 0
                ? null
                : string.Create(CultureInfo.InvariantCulture, $"MAXTRANSFERSIZE is a multiple of 65536 bytes from {low} to {high}{(s3 ? " to an S3 URL" : string.Empty)}"));
        }
    }

    /// <summary>
    /// True when <paramref name="sql"/> ends inside a string literal or a quoted name: a line break inside a database
    /// name or a path cut the statement, and its rest is on the following lines.
    /// </summary>
    public static bool EndsInsideQuote(string sql)
    {
        ArgumentNullException.ThrowIfNull(sql);
        SqlTokenizer.Tokenize(sql, out var cut);
        return cut;
    }

    private sealed class Reader(List<SqlToken> tokens, int position)
    {
        private static bool Interpreted(string name) => name is "BUFFERCOUNT" or "MAXTRANSFERSIZE" or "BLOCKSIZE" or "COMPRESSION" or "NO_COMPRESSION"
            or "COPY_ONLY" or "CHECKSUM" or "NO_CHECKSUM" or "DIFFERENTIAL" or "ENCRYPTION";

        private int _at = position;

        private SqlToken? Current => _at < tokens.Count ? tokens[_at] : null;

        public BackupCommand? Statement(OperationKind kind)
        {
            var verifyOnly = false;
            OperationScope scope;
            if (Accept("DATABASE"))
            {
                scope = OperationScope.Database;
            }
            else if (Accept("LOG"))
            {
                scope = OperationScope.Log;
            }
            else if (kind == OperationKind.Restore && (Accept("VERIFYONLY") || Accept("HEADERONLY") || Accept("FILELISTONLY") || Accept("LABELONLY")))
            {
                verifyOnly = true;
                scope = OperationScope.Database;
            }
            else
            {
                return null;
            }

            string? database = null;
            if (!verifyOnly)
            {
                if (Current is { Kind: SqlTokenKind.Word } name && !name.Is("TO") && !name.Is("FROM"))
                {
                    database = name.Text;
                    _at++;
                }
                else if (Current is { Kind: SqlTokenKind.Variable })
                {
                    _at++;
                }
                else
                {
                    return null;
                }
            }

            // FILE = / FILEGROUP = / PAGE = clauses up to TO / FROM.
            var partial = false;
            while (Current is { } token && !token.Is("TO") && !token.Is("FROM") && !token.Is("WITH") && !token.IsSymbol(';'))
            {
                partial |= token.Is("FILE") || token.Is("FILEGROUP") || token.Is("PAGE") || token.Is("READ_WRITE_FILEGROUPS");
                _at++;
            }

            var devices = new List<BackupDevice>();
            if (Accept("TO") || Accept("FROM"))
            {
                Devices(devices, mirror: false);
                while (Accept("MIRROR") && Accept("TO"))
                {
                    Devices(devices, mirror: true);
                }
            }

            var command = new BackupCommand
            {
                Kind = kind,
                Scope = partial && scope == OperationScope.Database ? OperationScope.File : scope,
                IsVerifyOnly = verifyOnly,
                Database = database,
                Devices = devices,
            };
            return Accept("WITH") ? Options(command) : command;
        }

        private void Devices(List<BackupDevice> devices, bool mirror)
        {
            do
            {
                if (Current is not { } token)
                {
                    return;
                }

                var kind = token.Is("DISK") ? DeviceKind.Disk
                    : token.Is("URL") ? DeviceKind.Url
                    : token.Is("TAPE") ? DeviceKind.Tape
                    : token.Is("VIRTUAL_DEVICE") ? DeviceKind.Virtual
                    : (DeviceKind?)null;
                if (kind is { } known && Peek(1) is { } equals && equals.IsSymbol('='))
                {
                    _at += 2;
                    var path = Current is { Kind: SqlTokenKind.String } literal ? literal.Text : null;
                    _at++;
                    devices.Add(new BackupDevice(known, path, mirror));
                }
                else if (token.Kind is SqlTokenKind.Word or SqlTokenKind.Variable && !token.Is("WITH") && !token.Is("MIRROR"))
                {
                    devices.Add(new BackupDevice(DeviceKind.Logical, token.Kind == SqlTokenKind.Word ? token.Text : null, mirror));
                    _at++;
                }
                else
                {
                    return;
                }
            }
            while (Accept(','));
        }

        private BackupCommand Options(BackupCommand command)
        {
            var variables = new List<string>();
            var problems = new List<string>();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            while (Current is { } token && !token.IsSymbol(';'))
            {
                if (token.IsSymbol(','))
                {
                    _at++;
                    continue;
                }

                var name = token.Text.ToUpperInvariant();
                _at++;

                // SQL Server refuses a statement that repeats an option; what it would have done is not known, so the first value stands.
                // Only the options read here: MOVE, for one, is rightly written once per file.
                var repeated = token.Kind == SqlTokenKind.Word && Interpreted(name) && !seen.Add(name);
                if (repeated)
                {
                    problems.Add($"{name} is given twice; SQL Server refuses a statement that repeats an option, so only the first is read");
                    SkipOption();
                    continue;
                }

                switch (name)
                {
                    case "BUFFERCOUNT":
                        command = command with { BufferCount = (int?)Number(name, variables, problems, OptionRanges.BufferCount) };
                        break;
                    case "MAXTRANSFERSIZE":
                        command = command with { MaxTransferSizeBytes = Number(name, variables, problems, OptionRanges.MaxTransferSize(command.Devices)) };
                        break;
                    case "BLOCKSIZE":
                        command = command with { BlockSizeBytes = (int?)Number(name, variables, problems, OptionRanges.BlockSize) };
                        break;
                    case "COMPRESSION":
                        command = command with { Compression = true, CompressionAlgorithm = Algorithm() ?? command.CompressionAlgorithm };
                        break;
                    case "NO_COMPRESSION":
                        command = command with { Compression = false };
                        break;
                    case "COPY_ONLY":
                        command = command with { CopyOnly = true };
                        break;
                    case "CHECKSUM":
                        command = command with { Checksum = true };
                        break;
                    case "NO_CHECKSUM":
                        command = command with { Checksum = false };
                        break;
                    case "DIFFERENTIAL":
                        command = command with { Scope = command.Scope == OperationScope.Database ? OperationScope.Differential : command.Scope };
                        break;
                    case "ENCRYPTION":
                        command = command with { Encryption = true, EncryptionAlgorithm = Algorithm() ?? command.EncryptionAlgorithm };
                        break;
                    default:
                        SkipOption();
                        break;
                }
            }

            return command with { VariableOptions = variables, Problems = problems };
        }

        /// <summary>
        /// "= 123" after an option name, read as SQL Server reads a constant: a variable is noted; a float, decimal or
        /// binary constant (1e30, 4.5, 0x10), a value beyond an int or one outside <paramref name="range"/> is a
        /// problem and not used.
        /// </summary>
        private long? Number(string option, List<string> variables, List<string> problems, OptionRange range)
        {
            if (!Accept('='))
            {
                return null;
            }

            var token = Current;
            _at++;
            if (token is { Kind: SqlTokenKind.Variable })
            {
                variables.Add(option);
                return null;
            }

            if (token is not { Kind: SqlTokenKind.Number } number)
            {
                // A sign, a word or nothing: no constant SQL Server takes here (a minus sign makes a negative count).
                problems.Add($"{option} = {(token is { } t ? Shown(t.Text) : "(nothing)")}: not a positive integer; ignored");
                return null;
            }

            if (!number.Text.All(char.IsAsciiDigit))
            {
                var kind = number.Text.StartsWith("0x", StringComparison.OrdinalIgnoreCase) ? "a binary" : number.Text.Contains('.', StringComparison.Ordinal) && !number.Text.Contains('e', StringComparison.OrdinalIgnoreCase) ? "a decimal" : "a float";
                problems.Add($"{option} = {Shown(number.Text)}: {kind} constant, not the integer SQL Server takes for {option}; ignored");
                return null;
            }

            if (!long.TryParse(number.Text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) || value > int.MaxValue)
            {
                problems.Add($"{option} = {Shown(number.Text)}: beyond an int ({int.MaxValue.ToString(CultureInfo.InvariantCulture)}), which SQL Server does not take; ignored");
                return null;
            }

            if (range.Problem(value) is { } outside)
            {
                problems.Add($"{option} = {value.ToString(CultureInfo.InvariantCulture)}: {outside}; ignored");
                return null;
            }

            return value;
        }

        // A number of a thousand digits is shown by its head and its length.
        private static string Shown(string text) => text.Length <= 32 ? text : string.Create(CultureInfo.InvariantCulture, $"{text[..24]}... ({text.Length} characters)");

        /// <summary>"(ALGORITHM = X, ...)" after COMPRESSION or ENCRYPTION; the whole parenthesis is consumed.</summary>
        private string? Algorithm()
        {
            if (!Accept('('))
            {
                return null;
            }

            string? algorithm = null;
            var depth = 1;
            while (Current is { } token && depth > 0)
            {
                if (token.Is("ALGORITHM") && Peek(1) is { } equals && equals.IsSymbol('=') && Peek(2) is { Kind: SqlTokenKind.Word } value)
                {
                    algorithm = value.Text.ToUpperInvariant();
                    _at += 3;
                    continue;
                }

                depth += token.IsSymbol('(') ? 1 : token.IsSymbol(')') ? -1 : 0;
                _at++;
            }

            return algorithm;
        }

        /// <summary>An option this reader does not interpret: everything up to the next comma outside parentheses.</summary>
        private void SkipOption()
        {
            var depth = 0;
            while (Current is { } token && !token.IsSymbol(';') && !(depth == 0 && token.IsSymbol(',')))
            {
                depth += token.IsSymbol('(') ? 1 : token.IsSymbol(')') ? -1 : 0;
                if (depth < 0)
                {
                    return;
                }

                _at++;
            }
        }

        private SqlToken? Peek(int ahead) => _at + ahead < tokens.Count ? tokens[_at + ahead] : null;

        private bool Accept(string word)
        {
            if (Current is { } token && token.Is(word))
            {
                _at++;
                return true;
            }

            return false;
        }

        private bool Accept(char symbol)
        {
            if (Current is { } token && token.IsSymbol(symbol))
            {
                _at++;
                return true;
            }

            return false;
        }
    }
}
