using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace BackupXe.Cli.Commands;

/// <summary>
/// What makes two names one file: the device and inode on Linux, the volume serial number and file index on Windows.
/// Two paths with the same identity are the same bytes on disk whatever their names, which is how a hard link is told
/// apart from a copy; a path comparison cannot see it.
/// </summary>
internal readonly record struct FileIdentity(ulong Device, ulong Node)
{
    /// <summary>
    /// The identity of the existing file at <paramref name="path"/> (symbolic links followed), or null when the file does
    /// not exist, cannot be examined, or the platform gives no identity (then only paths can be compared).
    /// </summary>
    public static FileIdentity? Of(string path)
    {
        try
        {
            if (!File.Exists(path))
            {
                return null;
            }

            if (OperatingSystem.IsLinux())
            {
                return Linux(path);
            }

            return OperatingSystem.IsWindows() ? Windows(path) : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException
                                      or EntryPointNotFoundException or DllNotFoundException)
        {
            // statx is missing before glibc 2.28, and musl has no libc.so.6: the caller falls back to comparing paths.
            return null;
        }
    }

    private static FileIdentity? Linux(string path)
    {
        // struct statx has one layout on every Linux architecture, unlike struct stat.
        var buffer = new byte[StatxSize];
        var name = Encoding.UTF8.GetBytes(path + '\0');
        if (Statx(AtCurrentDirectory, name, 0, StatxInode, buffer) != 0)
        {
            return null;
        }

        var node = BinaryPrimitives.ReadUInt64LittleEndian(buffer.AsSpan(StatxInodeOffset));
        var major = BinaryPrimitives.ReadUInt32LittleEndian(buffer.AsSpan(StatxDeviceMajorOffset));
        var minor = BinaryPrimitives.ReadUInt32LittleEndian(buffer.AsSpan(StatxDeviceMinorOffset));
        return new FileIdentity(((ulong)major << 32) | minor, node);
    }

    private static FileIdentity? Windows(string path)
    {
        using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        return GetFileInformationByHandle(handle, out var information)
            ? new FileIdentity(information.VolumeSerialNumber, ((ulong)information.FileIndexHigh << 32) | information.FileIndexLow)
            : null;
    }

    private const int AtCurrentDirectory = -100;
    private const uint StatxInode = 0x100;
    private const int StatxSize = 256;
    private const int StatxInodeOffset = 32;
    private const int StatxDeviceMajorOffset = 136;
    private const int StatxDeviceMinorOffset = 140;

    // glibc's soname: a bare "libc" can resolve to the linker script libc.so where the C headers are installed.
    [DllImport("libc.so.6", EntryPoint = "statx", SetLastError = true)]
    private static extern int Statx(int directory, byte[] path, int flags, uint mask, byte[] buffer);

    [DllImport("kernel32", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static extern bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);

    [StructLayout(LayoutKind.Sequential)]
    private struct ByHandleFileInformation
    {
        public uint FileAttributes;
        // Three FILETIMEs, each two 32-bit halves: 4-byte aligned, so not a long.
        public uint CreationTimeLow;
        public uint CreationTimeHigh;
        public uint LastAccessTimeLow;
        public uint LastAccessTimeHigh;
        public uint LastWriteTimeLow;
        public uint LastWriteTimeHigh;
        public uint VolumeSerialNumber;
        public uint FileSizeHigh;
        public uint FileSizeLow;
        public uint NumberOfLinks;
        public uint FileIndexHigh;
        public uint FileIndexLow;
    }
}
