using System.Globalization;
using System.Text;
using System.Xml;

namespace BackupXe.Benchmarks.Synthetic;

/// <summary>Writes records as XE XML: event_file rows (sys.fn_xe_file_target_read_file event_data) under one root.</summary>
public static class XeXmlTraceWriter
{
    /// <param name="withSessionId">False writes no session_id action, as a session captured without it.</param>
    public static long Write(string path, IEnumerable<TraceRecord> records, bool withSessionId = true)
    {
        var settings = new XmlWriterSettings { Indent = true, Encoding = new UTF8Encoding(false) };
        using var xml = XmlWriter.Create(path, settings);
        xml.WriteStartElement("events");
        long count = 0;
        foreach (var record in records)
        {
            switch (record)
            {
                case ProgressRecord p:
                    WriteProgress(xml, p, withSessionId);
                    break;
                case WaitRecord w:
                    WriteWait(xml, w, withSessionId);
                    break;
                default:
                    continue;
            }

            count++;
        }

        xml.WriteEndElement();
        return count;
    }

    private static void WriteProgress(XmlWriter xml, ProgressRecord p, bool withSessionId)
    {
        StartEvent(xml, "backup_restore_progress_trace", "sqlserver", p.At);
        Map(xml, "operation_type", "backup_restore_operation_type", "sqlserver", p.IsRestore ? 1 : 0, p.IsRestore ? "Restore" : "Backup");
        Plain(xml, "trace_level", "uint16", "0");
        String(xml, "database_name", p.Database);
        String(xml, "trace_message", p.Message);
        if (withSessionId)
        {
            SessionAction(xml, p.Spid);
        }
        xml.WriteEndElement();
    }

    private static void WriteWait(XmlWriter xml, WaitRecord w, bool withSessionId)
    {
        StartEvent(xml, w.External ? "wait_info_external" : "wait_info", "sqlos", w.At);
        Map(xml, "wait_type", "wait_types", "sqlos", w.MapKey, w.WaitType);
        Map(xml, "opcode", "event_opcode", "sqlos", 1, "End");
        Plain(xml, "duration", "uint64", w.DurationMs.ToString(CultureInfo.InvariantCulture));
        Plain(xml, "signal_duration", "uint64", w.SignalMs.ToString(CultureInfo.InvariantCulture));
        if (withSessionId)
        {
            SessionAction(xml, w.Spid);
        }
        xml.WriteEndElement();
    }

    private static void StartEvent(XmlWriter xml, string name, string package, DateTime at)
    {
        xml.WriteStartElement("event");
        xml.WriteAttributeString("name", name);
        xml.WriteAttributeString("package", package);
        xml.WriteAttributeString("timestamp", at.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture));
    }

    private static void Map(XmlWriter xml, string name, string type, string package, int key, string text)
    {
        xml.WriteStartElement("data");
        xml.WriteAttributeString("name", name);
        Type(xml, type, package);
        xml.WriteElementString("value", key.ToString(CultureInfo.InvariantCulture));
        xml.WriteElementString("text", text);
        xml.WriteEndElement();
    }

    private static void Plain(XmlWriter xml, string name, string type, string value)
    {
        xml.WriteStartElement("data");
        xml.WriteAttributeString("name", name);
        Type(xml, type, "package0");
        xml.WriteElementString("value", value);
        xml.WriteEndElement();
    }

    private static void String(XmlWriter xml, string name, string value)
    {
        xml.WriteStartElement("data");
        xml.WriteAttributeString("name", name);
        Type(xml, "unicode_string", "package0");
        xml.WriteStartElement("value");
        xml.WriteCData(value);
        xml.WriteEndElement();
        xml.WriteEndElement();
    }

    private static void SessionAction(XmlWriter xml, int spid)
    {
        xml.WriteStartElement("action");
        xml.WriteAttributeString("name", "session_id");
        xml.WriteAttributeString("package", "sqlserver");
        Type(xml, "uint16", "package0");
        xml.WriteElementString("value", spid.ToString(CultureInfo.InvariantCulture));
        xml.WriteEndElement();
    }

    private static void Type(XmlWriter xml, string name, string package)
    {
        xml.WriteStartElement("type");
        xml.WriteAttributeString("name", name);
        xml.WriteAttributeString("package", package);
        xml.WriteEndElement();
    }
}

/// <summary>
/// Writes records as a raw ERRORLOG: UTF-16LE with BOM, CRLF, "yyyy-MM-dd HH:mm:ss.ff spidNN      text",
/// with the "Backup(db): " prefix on backup trace lines, as trace flag 3014 writes them.
/// </summary>
public static class ErrorlogTraceWriter
{
    public static long Write(string path, IEnumerable<TraceRecord> records)
    {
        using var writer = new StreamWriter(path, false, new UnicodeEncoding(bigEndian: false, byteOrderMark: true)) { NewLine = "\r\n" };
        long count = 0;
        foreach (var record in records)
        {
            var (process, text) = record switch
            {
                ProgressRecord { Prefixed: true } p => ($"spid{p.Spid}", $"Backup({p.Database}): {p.Message}"),
                ProgressRecord p => ($"spid{p.Spid}", p.Message),
                ServerLineRecord s => (s.Process, s.Text),
                _ => (null, null),
            };
            if (process is null)
            {
                continue;
            }

            writer.Write(record.At.ToString("yyyy-MM-dd HH:mm:ss.ff", CultureInfo.InvariantCulture));
            writer.Write(' ');
            writer.Write(process.PadRight(12));
            writer.WriteLine(text);
            count++;
        }

        return count;
    }
}
