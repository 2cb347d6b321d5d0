using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Testing.Tds;

namespace BackupXe.Tests.Support;

/// <summary>
/// Serves a <see cref="ScriptedEventFile"/> on the TDS double as <c>sys.fn_xe_file_target_read_file</c> would:
/// the rows after the request's <c>@initial_file_name</c> / <c>@initial_offset</c>, at most <c>@batch</c> of them.
/// Before each queued drop point the answer is cut off mid-result and the connection reset. <c>whileReading</c>
/// runs on the double's side of every read before it answers (a test's stand-in for the server's own work).
/// </summary>
internal static class EventFileOverTds
{
    public static TdsScript Serve(this TdsScript script, ScriptedEventFile file, Queue<int>? dropAfterRows = null, Action? whileReading = null)
    {
        script.On("fn_xe_file_target_read_file(@path, NULL, @initial_file_name", request =>
        {
            whileReading?.Invoke();
            var after = request.Parameters["@initial_file_name"] is string name
                ? new EventFilePosition(name, Convert.ToInt64(request.Parameters["@initial_offset"], System.Globalization.CultureInfo.InvariantCulture))
                : null;
            var batch = Convert.ToInt32(request.Parameters["@batch"], System.Globalization.CultureInfo.InvariantCulture);
            // A path without a wildcard is one file, read from its start.
            var path = (string)request.Parameters["@path"]!;
            var set = new TdsResultSet(TdsColumn.XmlAsNVarChar("event_data"), TdsColumn.NVarChar("file_name", 260), TdsColumn.BigInt("file_offset"));
            var rows = new List<EventFileRow>();
            try
            {
                var read = path.Contains('*', StringComparison.Ordinal)
                    ? file.Read(after, batch, CancellationToken.None)
                    : file.ReadFile(path, batch, CancellationToken.None);
                foreach (var row in read)
                {
                    rows.Add(row);
                }
            }
            catch (EventFileMissingException)
            {
                // What the server says is not documented; any statement error leads the reader to probe the oldest file.
                return new TdsResponse().Error(25718, 16, "The log file name is invalid.");
            }
            catch (EventFileDamagedException damaged)
            {
                // The rows before the damaged buffer, then the error inside the result, as a runtime error mid-SELECT is sent.
                foreach (var row in rows)
                {
                    set.Row(row.EventData, row.FileName, row.FileOffset);
                }

                return new TdsResponse().PartialRows(set).Error(
                    25736, 16, $"A damaged buffer was found in file '{damaged.FileName}'. No further events will be read from the file.");
            }

            if (dropAfterRows is not null && dropAfterRows.TryPeek(out var cut) && cut < rows.Count)
            {
                dropAfterRows.Dequeue();
                foreach (var row in rows.Take(cut))
                {
                    set.Row(row.EventData, row.FileName, row.FileOffset);
                }

                return new TdsResponse().PartialRows(set).Disconnect();
            }

            foreach (var row in rows)
            {
                set.Row(row.EventData, row.FileName, row.FileOffset);
            }

            return TdsResponse.Of(set);
        });
        script.On("fn_xe_file_target_read_file(@path, NULL, NULL, NULL)", _ =>
            TdsResponse.Of(file.FileNames.Take(1).Aggregate(new TdsResultSet(TdsColumn.NVarChar("file_name", 260)), (set, name) => set.Row(name))));
        return script;
    }
}
