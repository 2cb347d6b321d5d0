namespace BackupXe.Sources.Xel;

/// <summary>
/// Reads a metadata buffer (type 1): package chunks, each with a package record and four sections in the order
/// events, actions, maps, types (docs/xel-format.md section 4). A chunk that does not end where its length says means
/// a layout this reader has not seen: that is damage, never guessed around.
/// </summary>
internal static class XelMetadataParser
{
    /// <summary>Adds every chunk of <paramref name="buffer"/>[<paramref name="start"/>..<paramref name="end"/>] to the catalogue.</summary>
    /// <exception cref="XelDamageException">A chunk is malformed; the catalogue keeps the chunks read before it.</exception>
    public static void Parse(ReadOnlySpan<byte> buffer, int start, int end, XelCatalogue catalogue)
    {
        var data = buffer[..end];
        var position = start;
        while (position < end)
        {
            var reader = new XelSpanReader(data, position);
            var version = reader.U16();
            if (version != XelLayout.Version)
            {
                throw new XelDamageException(position, $"unsupported XEL format version {version} in a metadata chunk");
            }

            var length = reader.U32();
            if (length < XelLayout.ChunkHeaderSize || length > (uint)(end - position))
            {
                throw new XelDamageException(position + 2, $"metadata chunk length {length} does not fit the {end - position} bytes left");
            }

            var chunkEnd = position + (int)length;
            reader = new XelSpanReader(data[..chunkEnd], position + 6);
            var session = reader.Guid();
            reader.Skip(10);
            var clockBase = reader.U64();
            var frequency = reader.U64();
            if (frequency == 0 || frequency > long.MaxValue || clockBase > long.MaxValue)
            {
                throw new XelDamageException(position + 0x20, $"clock base {clockBase} / frequency {frequency} out of range");
            }

            var package = ReadPackage(ref reader, catalogue);
            if (reader.Remaining > XelLayout.ChunkPadding)
            {
                throw new XelDamageException(reader.Position, $"package {package.Name}: {reader.Remaining} bytes left unread in its chunk (an unknown layout)");
            }

            catalogue.SessionGuid = session;
            catalogue.Clock = new XelClock((long)clockBase, (long)frequency);
            catalogue.Add(package);
            position = chunkEnd;
        }
    }

    private static XelPackage ReadPackage(ref XelSpanReader reader, XelCatalogue catalogue)
    {
        reader.U32();
        var id = reader.U32();
        var name = reader.WideStringZ();
        var description = reader.WideStringZ();
        var guid = reader.Guid();
        var module = reader.Guid();
        reader.U16();
        var tableEntries = reader.U32();
        // An 8 x 12-byte table of unknown meaning in the fixture; skipped by its stated count.
        if (tableEntries > (uint)reader.Remaining / 12)
        {
            throw new XelDamageException(reader.Position - 4, $"package {name}: table of {tableEntries} entries does not fit its chunk");
        }

        reader.Skip((int)tableEntries * 12);

        var events = new List<XelEventClass>();
        for (var count = Count(ref reader, name, "events"); count > 0; count--)
        {
            events.Add(ReadEvent(ref reader, name, catalogue));
        }

        var actions = new List<XelActionClass>();
        for (var count = Count(ref reader, name, "actions"); count > 0; count--)
        {
            reader.U32();
            var actionId = reader.U32();
            var actionName = reader.WideStringZ();
            var actionDescription = reader.WideStringZ();
            var typeId = reader.U32();
            reader.U32();
            reader.U32();
            actions.Add(new XelActionClass(actionId, actionName, name, actionDescription, typeId));
        }

        var maps = new List<XelMap>();
        for (var count = Count(ref reader, name, "maps"); count > 0; count--)
        {
            reader.U32();
            var mapId = reader.U32();
            var mapName = reader.WideStringZ();
            var mapDescription = reader.WideStringZ();
            var keySize = reader.U8();
            var entryCount = reader.U16();
            var entries = new List<KeyValuePair<uint, string>>(Math.Min((int)entryCount, reader.Remaining / 6));
            for (var i = 0; i < entryCount; i++)
            {
                var key = reader.U32();
                entries.Add(new KeyValuePair<uint, string>(key, reader.WideStringZ()));
            }

            maps.Add(new XelMap(mapId, mapName, name, mapDescription, keySize, entries));
        }

        var types = new List<XelType>();
        for (var count = Count(ref reader, name, "types"); count > 0; count--)
        {
            reader.U32();
            var typeId = reader.U32();
            var typeName = reader.WideStringZ();
            var typeDescription = reader.WideStringZ();
            types.Add(new XelType(typeId, typeName, name, typeDescription, reader.U8()));
        }

        return new XelPackage(id, name, description, guid, module, events, actions, maps, types);
    }

    private static XelEventClass ReadEvent(ref XelSpanReader reader, string package, XelCatalogue catalogue)
    {
        reader.U32();
        var id = reader.U32();
        var name = reader.WideStringZ();
        var description = reader.WideStringZ();
        var readOnlyCount = reader.U16();
        var customizableCount = reader.U16();
        var dataCount = reader.U16();
        var fixedCount = reader.U16();

        var readOnly = new List<XelReadOnlyColumn>();
        for (var i = 0; i < readOnlyCount; i++)
        {
            var typeId = reader.U32();
            var columnName = reader.WideStringZ();
            // 16 bytes for a guid_ptr (the UUID column), an 8-byte slot otherwise. The types section comes after the
            // events, so this relies on guid_ptr being a package0 type read in an earlier chunk, as in the fixture.
            var size = catalogue.Types.TryGetValue(typeId, out var type) && type.Name == "guid_ptr" ? 16 : 8;
            var value = reader.Bytes(size).ToArray();
            readOnly.Add(new XelReadOnlyColumn(typeId, columnName, value, reader.WideStringZ()));
        }

        var customizable = new List<XelCustomizableColumn>();
        for (var i = 0; i < customizableCount; i++)
        {
            var typeId = reader.U32();
            var columnName = reader.WideStringZ();
            var configured = reader.U64();
            var defaultValue = reader.U64();
            reader.U64();
            customizable.Add(new XelCustomizableColumn(typeId, columnName, configured, defaultValue, reader.WideStringZ()));
        }

        var data = new List<XelDataColumn>();
        for (var i = 0; i < dataCount; i++)
        {
            var typeId = reader.U32();
            var columnName = reader.WideStringZ();
            var offset = reader.U16();
            var flags = reader.U16();
            data.Add(new XelDataColumn(typeId, columnName, offset, flags, reader.WideStringZ()));
        }

        return new XelEventClass(id, name, package, description, readOnly, customizable, data, fixedCount);
    }

    private static int Count(ref XelSpanReader reader, string package, string section)
    {
        var position = reader.Position;
        var count = reader.U32();
        // Every record takes at least 8 bytes, so a count beyond that is damage, not a reason to loop for ever.
        if (count > (uint)reader.Remaining / 8)
        {
            throw new XelDamageException(position, $"package {package}: {count} {section} cannot fit in {reader.Remaining} bytes");
        }

        return (int)count;
    }
}
