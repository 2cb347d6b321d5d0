using BackupXe.Core.Formatting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// Where the trials write, guarded: before a run, no file that is not the tune's own and room for what it may write;
/// after it, its files deleted or, where the host cannot delete them, kept and listed with their bound.
/// </summary>
internal sealed class TrialWrites(ITrialHost server, TuneRequest request, TuningFacts facts)
{
    private readonly List<KeptTrialFile> _kept = [];
    private readonly bool _toUrls = request.Urls.Count > 0;

    /// <summary>The free-space checks overridden, once per directory, for the report.</summary>
    private readonly Dictionary<string, string> _overrides = new(StringComparer.Ordinal);

    /// <summary>Trial files left on the server so far; the list grows as runs keep files.</summary>
    public IReadOnlyList<KeptTrialFile> Kept => _kept;

    public IReadOnlyList<string> Overrides => [.. _overrides.Values];

    /// <summary>
    /// The files are this trial's own (checked absent, or refused by the server through MEDIANAME, before it ran):
    /// deleted even when it failed or was cancelled, or, when the host cannot delete, kept and listed with at most the
    /// bytes the trial read (a compressed trial writes less).
    /// </summary>
    public async Task CleanUpAsync(TrialStatement statement)
    {
        foreach (var path in statement.Devices)
        {
            if (server.DeletesFiles && !_toUrls)
            {
                await server.DeleteFileAsync(path, CancellationToken.None);
            }
            else if (!_kept.Any(f => f.Path == path))
            {
                // Each file, and the whole media set with it, holds at most one full backup: a stripe's share is not an
                // upper bound (stripes are not even, a compressed file is allocated ahead), the whole backup is.
                _kept.Add(new KeptTrialFile(path, Tuner.FullBackupBytesAtMost(facts)) { MediaName = statement.MediaName });
            }
        }
    }

    public async Task CheckTargetsAsync(TrialStatement statement, CancellationToken cancellationToken)
    {
        if (_toUrls)
        {
            // Blobs: the server refuses one that exists (no FORMAT), and their room was checked with the options (the tuner's FitsTargets).
            return;
        }

        foreach (var path in statement.Devices.Where(path => !_kept.Any(f => f.Path == path && f.MediaName == statement.MediaName)))
        {
            // A file of this tune's own media set is overwritten WITH INIT under its media name; any other is never touched.
            if (await server.FileExistsAsync(path, cancellationToken) == true)
            {
                throw new TuningStopped($"{path} already exists: a trial never writes over a file that is not the tune's own.", refused: true);
            }
        }

        // An uncompressed trial that finishes writes at most the database's size, split over its files.
        var perFile = facts.DatabaseBytes / statement.Devices.Count;
        if (statement.Overwrite)
        {
            // The run overwrites its media set's own files, which already hold their share: room was checked when they were made.
            return;
        }

        foreach (var group in statement.Devices.GroupBy(path => request.Directories.First(d => path.StartsWith(d.TrimEnd('\\', '/'), StringComparison.Ordinal))))
        {
            await CheckFreeAsync(group.Key, perFile * group.Count() + (perFile * group.Count() / 10), "a trial", cancellationToken);
        }
    }

    /// <summary>
    /// Room for <paramref name="needed"/> bytes in <paramref name="directory"/>, as the server reports it or, where it
    /// cannot, as the DBA stated it or accepted not to know; else the tune stops with the reason.
    /// </summary>
    public async Task CheckFreeAsync(string directory, long needed, string what, CancellationToken cancellationToken)
    {
        var free = await server.FreeSpaceAsync(directory, cancellationToken);
        if (free.Bytes is null && Overridden(directory, free.Unknown ?? "the server did not say") is { } stated)
        {
            free = stated;
        }

        if (free.Bytes is null && request.AcceptUnknownFreeSpace)
        {
            return;
        }

        if (free.Bytes is not { } bytes || bytes < needed)
        {
            throw new TuningStopped(free.Bytes is null
                ? $"The free space of {directory} cannot be read ({free.Unknown ?? "the server did not say"}): no trial writes there without it. State it with --free-space-mb \"{directory}=MB\", or accept the risk with --accept-unknown-free-space."
                : $"{directory} has {Figures.Memory(free.Bytes.Value)} free{(request.StatedFreeBytes.ContainsKey(directory) && _overrides.ContainsKey(directory) ? " (as stated, less the trial files already kept there)" : "")}; {what} may write {Figures.Memory(needed)} there.", refused: true);
        }
    }

    /// <summary>
    /// The free space the DBA stated for <paramref name="directory"/>, less every byte the trials kept there may hold,
    /// or null when none was stated; either override is recorded, once per directory, for the report.
    /// </summary>
    private FreeSpace? Overridden(string directory, string why)
    {
        if (request.StatedFreeBytes.TryGetValue(directory, out var stated))
        {
            _overrides.TryAdd(directory, $"{directory}: the server cannot report its free space ({why}); the stated {Figures.Memory(stated)} (--free-space-mb) was used in its place, less what earlier trials left there.");
            var kept = TrialFileCleanup.TotalBytesAtMost([.. _kept.Where(file => file.Path.StartsWith(TrialStatement.Join(directory, string.Empty), StringComparison.Ordinal))])
                ?? _kept.Count * Tuner.FullBackupBytesAtMost(facts);
            return FreeSpace.Of(Math.Max(0, stated - kept));
        }

        if (request.AcceptUnknownFreeSpace)
        {
            _overrides.TryAdd(directory, $"{directory}: the server cannot report its free space ({why}); the check was overridden (--accept-unknown-free-space) and trials wrote there unchecked.");
        }

        return null;
    }
}
