namespace BackupXe.Cli.Rendering;

/// <summary>
/// Where a report goes, standard output or the file named by <c>--output</c>, taken by its renderer either as text
/// (console, Markdown, HTML) or as bytes (JSON, which is UTF-8 already and would otherwise be turned into chars and
/// encoded back by the console's writer). A renderer takes one of the two.
/// </summary>
internal sealed class ReportOutput(string? path, CliConsole console) : IAsyncDisposable
{
    private TextWriter? _text;
    private Stream? _bytes;

    /// <summary>Standard output's text writer, or the file as UTF-8 text (created or truncated).</summary>
    public TextWriter Text
    {
        get
        {
            if (_bytes is not null)
            {
                throw new InvalidOperationException("The report output is already open as bytes.");
            }

            return _text ??= path is null ? console.Out : new StreamWriter(path, append: false);
        }
    }

    /// <summary>Standard output's byte stream, or the file (created or truncated), unbuffered: the writer sends large blocks.</summary>
    public Stream Bytes
    {
        get
        {
            if (_text is not null)
            {
                throw new InvalidOperationException("The report output is already open as text.");
            }

            if (_bytes is null)
            {
                // Anything already written to the console as text goes out before the first byte.
                console.Out.Flush();
                _bytes = path is null ? console.OpenStandardOutput() : new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 0);
            }

            return _bytes;
        }
    }

    public async Task FlushAsync(CancellationToken cancellationToken)
    {
        if (_text is not null)
        {
            await _text.FlushAsync(cancellationToken);
        }

        if (_bytes is not null)
        {
            await _bytes.FlushAsync(cancellationToken);
        }
    }

    /// <summary>Closes the file, or this handle on standard output; never the console's own writer.</summary>
    public async ValueTask DisposeAsync()
    {
        if (_text is not null && path is not null)
        {
            await _text.DisposeAsync();
        }

        if (_bytes is not null)
        {
            await _bytes.DisposeAsync();
        }
    }
}
