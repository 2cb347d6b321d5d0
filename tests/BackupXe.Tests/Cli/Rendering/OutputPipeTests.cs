using System.IO.Pipes;
using BackupXe.Cli.Rendering;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

public sealed class OutputPipeTests
{
    [Fact]
    public void A_pipe_is_widened_to_a_megabyte_and_what_goes_through_it_is_unchanged()
    {
        Skipped.Unless(OperatingSystem.IsLinux(), "pipe sizes are a Linux fcntl; elsewhere the pipe is left as it is", "run on Linux");

        // Given a pipe of the kernel's default size
        using var reader = new AnonymousPipeServerStream(PipeDirection.In);
        using var writer = new AnonymousPipeClientStream(PipeDirection.Out, reader.ClientSafePipeHandle);
        var descriptor = (int)writer.SafePipeHandle.DangerousGetHandle();
        Assert.InRange(OutputPipe.Size(descriptor), 1, OutputPipe.Wanted - 1);

        // When
        OutputPipe.Widen(descriptor);

        // Then: a megabyte fits without a reader, and reads back as written
        Assert.Equal(OutputPipe.Wanted, OutputPipe.Size(descriptor));
        var bytes = new byte[OutputPipe.Wanted];
        new Random(44).NextBytes(bytes);
        writer.Write(bytes);
        var read = new byte[bytes.Length];
        reader.ReadExactly(read);
        Assert.Equal(bytes, read);
    }

    [Fact]
    public void A_file_is_not_a_pipe_and_is_left_alone()
    {
        Skipped.Unless(OperatingSystem.IsLinux(), "pipe sizes are a Linux fcntl", "run on Linux");

        // Given
        var path = Path.GetTempFileName();
        try
        {
            using var file = File.OpenHandle(path, FileMode.Open, FileAccess.Write);
            var descriptor = (int)file.DangerousGetHandle();

            // When
            OutputPipe.Widen(descriptor);

            // Then
            Assert.Equal(-1, OutputPipe.Size(descriptor));
        }
        finally
        {
            File.Delete(path);
        }
    }
}
