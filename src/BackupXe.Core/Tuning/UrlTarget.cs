using System.Globalization;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Tuning;

/// <summary>Where BACKUP TO URL writes: Azure Blob Storage block blobs, or S3-compatible object storage.</summary>
public enum UrlStorage
{
    AzureBlockBlob,
    S3Compatible,
}

/// <summary>
/// A <c>tune --to</c> that is a URL prefix rather than a directory: <c>https://account.blob.core.windows.net/container[/path]</c>
/// (Azure Blob Storage, block blobs) or <c>s3://endpoint[:port]/bucket[/path]</c> (S3-compatible, SQL Server 2022). Its
/// credential is the one BACKUP TO URL finds in sys.credentials: for a block blob, a Shared Access Signature credential
/// named after the container URL; for S3, one named after the bucket's URL. A credential named after a longer prefix of
/// the URL also serves it.
/// </summary>
public sealed record UrlTarget(string Prefix, UrlStorage Storage, string ContainerUrl)
{
    /// <summary>The limits of the storage this target writes to (docs/tuning.md, "Backups to URL").</summary>
    public UrlLimits Limits => Storage == UrlStorage.AzureBlockBlob ? UrlLimits.AzureBlockBlob : UrlLimits.S3Compatible;

    /// <summary>True when <paramref name="value"/> names a URL (a scheme before "://"), whether or not it is one BACKUP TO URL takes.</summary>
    public static bool LooksLikeUrl(string value) => value?.Contains("://", StringComparison.Ordinal) == true;

    /// <summary>The target of <paramref name="value"/>, or null with the reason it is not one BACKUP TO URL writes to.</summary>
    public static (UrlTarget? Target, string? Problem) Parse(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        var trimmed = value.Trim().TrimEnd('/');
        var storage = trimmed.StartsWith("https://", StringComparison.OrdinalIgnoreCase) ? UrlStorage.AzureBlockBlob
            : trimmed.StartsWith("s3://", StringComparison.OrdinalIgnoreCase) ? UrlStorage.S3Compatible
            : (UrlStorage?)null;
        if (storage is null)
        {
            return (null, $"--to '{value}' is a URL BACKUP cannot write to: BACKUP TO URL takes https:// (Azure Blob Storage) or s3:// (S3-compatible storage, SQL Server 2022).");
        }

        var scheme = trimmed.IndexOf("://", StringComparison.Ordinal) + 3;
        var path = trimmed[scheme..].Split('/');
        if (path.Length < 2 || path[0].Length == 0 || path[1].Length == 0 || path.Any(part => part.Length == 0))
        {
            return (null, $"--to '{value}' must name the {(storage == UrlStorage.AzureBlockBlob ? "container" : "bucket")} after the host: {(storage == UrlStorage.AzureBlockBlob ? "https://account.blob.core.windows.net/container[/path]" : "s3://endpoint[:port]/bucket[/path]")}.");
        }

        if (trimmed.Any(c => char.IsWhiteSpace(c) || c is '?' or '#'))
        {
            // A SAS token belongs in the credential, never in the URL (nor in this tool's output).
            return (null, $"--to names a URL with a query, a fragment or a space: give the container path alone; the Shared Access Signature belongs in the server's credential.");
        }

        return (new UrlTarget(trimmed, storage.Value, trimmed[..scheme] + path[0] + "/" + path[1]), null);
    }

    /// <summary>
    /// The credential of <paramref name="names"/> (sys.credentials) BACKUP uses for this target: the longest name that is
    /// the container's URL or a longer prefix of the target, compared without case; null when none.
    /// </summary>
    public string? CredentialIn(IEnumerable<string> names)
    {
        ArgumentNullException.ThrowIfNull(names);
        return names
            .Select(name => name.TrimEnd('/'))
            .Where(name => name.Length >= ContainerUrl.Length
                && Prefix.StartsWith(name, StringComparison.OrdinalIgnoreCase)
                && (Prefix.Length == name.Length || Prefix[name.Length] == '/'))
            .OrderByDescending(name => name.Length)
            .FirstOrDefault();
    }

    /// <summary>The statement a DBA runs to give BACKUP its credential; the secret stays a placeholder, never one of ours.</summary>
    public string CreateCredential => Storage == UrlStorage.AzureBlockBlob
        ? $"CREATE CREDENTIAL {Tsql.Name(ContainerUrl)} WITH IDENTITY = 'SHARED ACCESS SIGNATURE', SECRET = '<SAS token without the leading ?>';"
        : $"CREATE CREDENTIAL {Tsql.Name(ContainerUrl)} WITH IDENTITY = 'S3 Access Key', SECRET = '<access key id>:<secret key id>';";

    /// <summary>The trial blob <paramref name="name"/> under this prefix.</summary>
    public string Blob(string name) => Prefix + "/" + name;

    /// <summary>"50,000 blocks of 1 MB (48.8 GB)": what one blob holds at <paramref name="maxTransferSize"/> (null: the default).</summary>
    public string Describe(long? maxTransferSize) => string.Create(CultureInfo.InvariantCulture,
        $"{Limits.BlocksPerBlob:N0} {Limits.BlockWord}s of {(maxTransferSize ?? Limits.DefaultTransferBytes) / 1024 / 1024.0:0.##} MB ({Figures.Bytes(Limits.CapacityBytes(1, maxTransferSize))})");
}
