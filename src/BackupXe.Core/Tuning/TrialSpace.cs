using System.Globalization;

namespace BackupXe.Core.Tuning;

/// <summary>
/// Where trials to files write on a server that keeps them (a live server cannot delete a file): a few media sets
/// ("slots") of the tune's own, each reused by later runs of the same shape, so what is left behind is bounded. A
/// slot is one media set of <c>Files</c> files with one compression and block size (BACKUP appends to or overwrites a
/// media set only with the same number of families, and compressed and uncompressed backups do not share one). Its
/// first run writes new files (NOINIT, NOSKIP, MEDIANAME); a later run overwrites them WITH INIT, NOSKIP and the same
/// MEDIANAME, so the server itself refuses any file that does not carry the tune's own media name. A slot holds one
/// backup set at a time, so at most one full backup of the database (<see cref="SlotBytesAtMost"/>).
/// </summary>
internal sealed class TrialSpace
{
    private readonly List<Slot> _slots = [];
    private readonly string _runId;

    public TrialSpace(long slotBytesAtMost, long limitBytes, string runId)
    {
        SlotBytesAtMost = slotBytesAtMost;
        LimitBytes = limitBytes;
        _runId = runId;
    }

    /// <summary>One full backup: the data files' and the log file's allocated size, plus the margin for headers.</summary>
    public long SlotBytesAtMost { get; }

    /// <summary>What the tune may leave on disk in all (<c>--max-trial-space</c>, or a multiple of the database).</summary>
    public long LimitBytes { get; }

    /// <summary>How many media sets fit within the limit.</summary>
    public int SlotsAtMost => (int)Math.Min(int.MaxValue, LimitBytes / Math.Max(1, SlotBytesAtMost));

    /// <summary>The bytes the slots opened so far may hold in all: the exact bound of what is left behind.</summary>
    public long BytesAtMost => _slots.Count * SlotBytesAtMost;

    public IReadOnlyList<Slot> Slots => _slots;

    /// <summary>True when a run with these options has a slot, or room for a new one.</summary>
    public bool CanHost(TrialOptions options, bool compressionDefault) =>
        _slots.Any(s => !s.Pinned && s.Key == Key(options, compressionDefault)) || _slots.Count < SlotsAtMost;

    /// <summary>The slot for a run with these options: an unpinned one of the same shape, else a new one; null when none fits.</summary>
    public Slot? Take(TrialOptions options, bool compressionDefault)
    {
        var key = Key(options, compressionDefault);
        if (_slots.FirstOrDefault(s => !s.Pinned && s.Key == key) is { } slot)
        {
            slot.Runs++;
            return slot;
        }

        if (_slots.Count >= SlotsAtMost)
        {
            return null;
        }

        slot = new Slot(_slots.Count + 1, key, string.Create(CultureInfo.InvariantCulture, $"backupxe-tune-{_runId}-s{_slots.Count + 1:00}")) { Runs = 1 };
        _slots.Add(slot);
        return slot;
    }

    private static (int Files, bool Compressed, int BlockSize) Key(TrialOptions options, bool compressionDefault) =>
        (options.Files, options.Compression ?? compressionDefault, options.BlockSizeBytes ?? 0);

    /// <summary>One media set of the tune: its number, its shape, its media name, how many runs wrote it.</summary>
    internal sealed class Slot(int number, (int Files, bool Compressed, int BlockSize) key, string mediaName)
    {
        public int Number { get; } = number;

        public (int Files, bool Compressed, int BlockSize) Key { get; } = key;

        public string MediaName { get; } = mediaName;

        public int Runs { get; set; }

        /// <summary>Kept as it is: it holds the finished backup the restore trials read.</summary>
        public bool Pinned { get; set; }

        /// <summary>The next run overwrites the slot's files (WITH INIT) rather than creating them.</summary>
        public bool Reused => Runs > 1;
    }
}
