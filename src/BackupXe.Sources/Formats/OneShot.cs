namespace BackupXe.Sources.Formats;

/// <summary>An already open stream handed to a reader that asks for its content through a factory.</summary>
internal static class OneShot
{
    public static Func<Stream> Of(Stream stream)
    {
        var taken = false;
        return () =>
        {
            // Standard input and pipes cannot be read twice; a second read is a caller's mistake, said plainly.
            if (taken)
            {
                throw new InvalidOperationException("this input was opened from a stream and has already been read");
            }

            taken = true;
            return stream;
        };
    }
}
