using BackupXe.Core.Parsing;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Parsing;

public sealed class OsErrorTests
{
    [Theory]
    [InlineData("Cannot open backup device 'D:\\b\\x.bak'. Operating system error 5(Access is denied.).", 5, "Access is denied.")]
    [InlineData("Write on \"D:\\b\\x.bak\" failed: 112(There is not enough space on the disk.)", 112, "There is not enough space on the disk.")]
    [InlineData("BackupVirtualDeviceFile::RequestDurableMedia: Flush failure on backup device '{7C1F}1'. Operating system error 995(The I/O operation has been aborted because of either a thread exit or an application request.).",
        995, "The I/O operation has been aborted because of either a thread exit or an application request.")]
    [InlineData("The operating system returned error 1117(The request could not be performed because of an I/O device error.) to SQL Server during a write at offset 0x0000000a1c0000 in file 'F:\\d.mdf'.",
        1117, "The request could not be performed because of an I/O device error.")]
    [InlineData("Operating system error 0x80070070(There is not enough space on the disk.).", 112, "There is not enough space on the disk.")]
    [InlineData("Operating system error 1450(Insufficient system resources exist to complete the requested service.) on file \"F:\\d.mdf\" during restore.", 1450,
        "Insufficient system resources exist to complete the requested service.")]
    public void Reads_the_code_and_the_text_the_message_printed(string message, int code, string text)
    {
        // Given / When
        var error = OsError.In(message);

        // Then
        Assert.Equal(new OsError(code, text), error);
    }

    [Fact]
    public void Reads_a_backup_to_URL_endpoint_exception_which_has_no_code()
    {
        // Given: 18210's text for a backup to URL whose storage endpoint timed out
        const string message = "BackupIoRequest::ReportIoError: write failure on backup device 'https://acct.blob.core.windows.net/sql/Sales.bak'. "
            + "Operating system error Backup to URL received an exception from the remote endpoint. Exception Message: The operation has timed out..";

        // When
        var error = OsError.In(message);

        // Then
        Assert.Equal(new OsError(null, "The operation has timed out"), error);
        Assert.Equal("https://acct.blob.core.windows.net/sql/Sales.bak", MessageTarget.In(message));
    }

    [Theory]
    [InlineData("Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27.")]
    [InlineData("Operating system error Z(x).")]
    [InlineData(null)]
    public void Finds_none_where_the_message_has_none(string? message)
        => Assert.Null(OsError.In(message));

    [Fact]
    public void Gives_the_meaning_of_a_code_printed_alone()
        => Assert.Equal("There is not enough space on the disk.", OsError.MeaningOf(112));

    [Fact]
    public void Decodes_31_as_windows_general_failure()
        // realworld4 V05a and V05b: a restore's read of a file shared from a macOS host into a container
        => Assert.Equal("A device attached to the system is not functioning.", OsError.MeaningOf(31));

    [Fact]
    public void Lists_in_the_catalog_page_every_code_it_decodes()
    {
        // Given docs/message-catalog.md's sentence that lists the decoded codes after their Microsoft source
        var page = File.ReadAllText(Path.Combine(Repository.Root, "docs", "message-catalog.md"));
        var listed = System.Text.RegularExpressions.Regex.Match(page, @"system-error-codes\):\s*([\d,\s]+)\.").Groups[1].Value;

        // When
        var codes = listed.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries).Select(int.Parse).Order();

        // Then: the page and the table name the same codes
        Assert.Equal(OsError.Known.Keys.Order(), codes);
    }
}
