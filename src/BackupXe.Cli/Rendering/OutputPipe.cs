using System.Runtime.InteropServices;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// Standard output, when it is a pipe on Linux, widened from the kernel's 64 KB to 1 MB (the most an unprivileged
/// process may ask, /proc/sys/fs/pipe-max-size): a report of tens of megabytes then reaches its reader in a sixteenth
/// of the hand-overs between the two processes (docs/performance.md, "The JSON report"). A file, a terminal, another
/// system or a refusal is left as it is.
/// </summary>
internal static class OutputPipe
{
    public const int Wanted = 1 << 20;

    private const int SetPipeSize = 1031; // F_SETPIPE_SZ
    private const int GetPipeSize = 1032; // F_GETPIPE_SZ

    /// <summary>Widens the pipe behind <paramref name="descriptor"/> to <see cref="Wanted"/> if it is a narrower pipe.</summary>
    public static void Widen(int descriptor)
    {
        var size = Size(descriptor);
        if (size is > 0 and < Wanted)
        {
            Fcntl(descriptor, SetPipeSize, Wanted);
        }
    }

    /// <summary>The pipe's size in bytes; -1 when the descriptor is not a pipe or this is not Linux.</summary>
    public static int Size(int descriptor)
    {
        if (!OperatingSystem.IsLinux())
        {
            return -1;
        }

        try
        {
            return Fcntl(descriptor, GetPipeSize, 0);
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            // Not glibc (musl names its C library otherwise): the pipe keeps its size.
            return -1;
        }
    }

    // glibc's soname, as FileIdentity's statx. fcntl is variadic; its one int argument travels as a fixed one would.
    [DllImport("libc.so.6", EntryPoint = "fcntl")]
    private static extern int Fcntl(int descriptor, int command, int argument);
}
