using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.History;

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

    private sealed class Reader(List<SqlToken> tokens, int position)
    {
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
            while (Current is { } token && !token.IsSymbol(';'))
            {
                if (token.IsSymbol(','))
                {
                    _at++;
                    continue;
                }

                var name = token.Text.ToUpperInvariant();
                _at++;
                switch (name)
                {
                    case "BUFFERCOUNT":
                        command = command with { BufferCount = (int?)Number(name, variables, int.MaxValue) };
                        break;
                    case "MAXTRANSFERSIZE":
                        command = command with { MaxTransferSizeBytes = Number(name, variables, long.MaxValue) };
                        break;
                    case "BLOCKSIZE":
                        command = command with { BlockSizeBytes = (int?)Number(name, variables, int.MaxValue) };
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

            return command with { VariableOptions = variables };
        }

        /// <summary>"= 123" after an option name; a variable is noted, a value out of range is ignored.</summary>
        private long? Number(string option, List<string> variables, long max)
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

            return token is { Kind: SqlTokenKind.Number } number
                && long.TryParse(number.Text, NumberStyles.None, CultureInfo.InvariantCulture, out var value)
                && value > 0 && value <= max
                ? value
                : null;
        }

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
