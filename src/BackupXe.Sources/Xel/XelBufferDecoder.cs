using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Xel;

/// <summary>
/// A problem found while decoding one buffer, at its file offset. <see cref="Once"/> names a problem that is said
/// once per file however many buffers meet it (an action the metadata lacks, a buffer of another session);
/// <see cref="Always"/> for the rest.
/// </summary>
internal readonly record struct XelFinding(long Offset, string Message, long Once = XelFinding.Always)
{
    public const long Always = -1;

    /// <summary>The key of "this file's buffers belong to another session".</summary>
    public const long OtherSession = 1L << 32;
}

/// <summary>
/// A file's metadata as it stood when a buffer was read, resolved for decoding: the event and action plans in
/// arrays searched by id (a session has a handful of each). Never changed once built, so the buffers of one file
/// can be decoded on several threads at once.
/// </summary>
internal sealed class XelPlans
{
    private readonly uint[] _eventIds;
    private readonly XelEventPlan[] _events;
    private readonly uint[] _actionIds;
    private readonly XelValuePlan[] _actions;

    private XelPlans(XelCatalogue catalogue)
    {
        Shapes = new XeShapes();
        var maps = catalogue.Maps.ToDictionary(m => m.Key, m => new XelMapPlan(m.Value, Shapes));
        _eventIds = [.. catalogue.Events.Keys];
        _events = [.. catalogue.Events.Values.Select(e => new XelEventPlan(e, catalogue, maps, Shapes))];
        _actionIds = [.. catalogue.Actions.Keys];
        _actions = [.. catalogue.Actions.Values.Select((a, i) => XelValuePlan.For(catalogue, maps, a.Name, a.Package, a.TypeId, i, isAction: true))];
        foreach (var action in _actions)
        {
            Shapes.AddAction(action.Shape);
        }

        Session = catalogue.SessionGuid;
        Clock = catalogue.Clock;
    }

    public static XelPlans Empty { get; } = new(new XelCatalogue());

    public Guid Session { get; }

    public XelClock Clock { get; }

    /// <summary>The events and actions as a listing names them.</summary>
    public XeShapes Shapes { get; }

    public static XelPlans Of(XelCatalogue catalogue) => new(catalogue);

    public XelEventPlan? Event(uint id)
    {
        var index = _eventIds.AsSpan().IndexOf(id);
        return index < 0 ? null : _events[index];
    }

    public XelValuePlan? Action(uint id)
    {
        var index = _actionIds.AsSpan().IndexOf(id);
        return index < 0 ? null : _actions[index];
    }
}

/// <summary>
/// Decodes the records of one event buffer against a file's <see cref="XelPlans"/>: every field (for listing) or
/// BackupXe's events (for analysis), with the problems met located in the file. Holds the working state of one
/// thread; a buffer's result depends only on the buffer and the plans, never on the buffers decoded before it.
/// </summary>
internal sealed class XelBufferDecoder(bool waitShortcut)
{
    // Off only where a test compares the shortcut with the general way.
    private readonly bool _waitShortcut = waitShortcut;

    private readonly XeEventFields _fields = new();

    // Trace messages are parsed where their offset is known; the parser's memory only saves allocations.
    private readonly TraceMessageParser _parser = new();

    // Problems said once per file are said once per buffer here; the file's reader keeps the first of each.
    private readonly HashSet<long> _onceSaid = [];

    // A session attaches the same actions to its events in the same order: the plan found at each place in the list
    // is tried first there, before a search of the file's actions.
    private const int RememberedActions = 8;
    private readonly uint[] _actionIds = new uint[RememberedActions];
    private readonly XelValuePlan?[] _actionPlans = new XelValuePlan?[RememberedActions];
    private XelPlans? _actionsOf;

    /// <summary>
    /// Decodes the records of one event buffer. Events are added to <paramref name="whole"/> (every field and action),
    /// told value by value to <paramref name="listing"/> (every field and action, from the buffer's bytes) or mapped to
    /// <paramref name="analysed"/> (BackupXe's events); damage ends the buffer, reported where it is.
    /// <paramref name="cut"/> says the buffer ends where its file was cut, which its caller reports.
    /// </summary>
    /// <returns>How many records were decoded, analysed or not.</returns>
    public long Decode(
        XelPlans plans,
        ReadOnlySpan<byte> buffer,
        int start,
        int end,
        Guid bufferSession,
        long bufferOffset,
        List<XelFinding> findings,
        List<XeEvent>? whole,
        TraceEventList? analysed,
        bool cut = false,
        IXeEventListing? listing = null)
    {
        _onceSaid.Clear();
        if (bufferSession != Guid.Empty && bufferSession != plans.Session)
        {
            Say(findings, new XelFinding(bufferOffset + 0x20, $"event buffer belongs to session {bufferSession}, the metadata to {plans.Session}; read anyway", XelFinding.OtherSession));
        }

        var data = buffer[..end];
        var position = start;
        long decoded = 0;

        // A buffer's records are mostly of one or two events: the plan of the last is tried before a search.
        var lastId = 0u;
        XelEventPlan? lastPlan = null;
        while (position < end)
        {
            var recordStart = position;
            XelEventPlan plan;
            ulong ticks;
            int payloadStart;
            int payloadLength;
            int actionsStart;
            try
            {
                var reader = new XelSpanReader(data, position);
                var id = reader.U32();
                var version = reader.U16();
                reader.Skip(6);
                ticks = reader.U64();
                var length = reader.U32();
                if (id != lastId || lastPlan is null)
                {
                    lastPlan = plans.Event(id) ?? throw new XelDamageException(recordStart, $"event id 0x{id:X8} is not in the file's metadata");
                    lastId = id;
                }

                plan = lastPlan;
                if (version != XelLayout.Version)
                {
                    throw new XelDamageException(recordStart + 4, $"event record version {version}, expected {XelLayout.Version}");
                }

                if (length > (uint)reader.Remaining)
                {
                    throw new XelDamageException(recordStart + 0x14, $"{plan.Class.Name} payload of {length} bytes runs past the buffer's {reader.Remaining} bytes");
                }

                payloadStart = reader.Position;
                payloadLength = (int)length;
                reader.Skip(payloadLength);
                actionsStart = reader.Position;
                while (true)
                {
                    var actionId = reader.U32();
                    var actionLength = reader.U32();
                    if (actionId == XelLayout.ActionListEnd && actionLength == 0)
                    {
                        break;
                    }

                    if (actionLength > (uint)reader.Remaining)
                    {
                        throw new XelDamageException(reader.Position - 4, $"{plan.Class.Name} action value of {actionLength} bytes runs past the buffer");
                    }

                    reader.Skip((int)actionLength);
                }

                position = reader.Position;
            }
            catch (XelDamageException e)
            {
                // In a buffer the file ends inside, the record the cut runs through is the cut, reported once already.
                if (!cut)
                {
                    findings.Add(new XelFinding(bufferOffset + e.Position, $"{e.Message}; the rest of this buffer ({end - recordStart} bytes from offset {bufferOffset + recordStart}) skipped"));
                }

                return decoded;
            }

            if (!plans.Clock.TryToUtc(ticks, out var timestamp))
            {
                findings.Add(new XelFinding(bufferOffset + recordStart + 0x0C, $"{plan.Class.Name} timestamp ({ticks} ticks) is out of range; event skipped"));
                continue;
            }

            var payload = data.Slice(payloadStart, payloadLength);
            var actions = data[actionsStart..position];
            try
            {
                if (listing is not null)
                {
                    DecodeListed(plans, plan, timestamp, payload, actions, bufferOffset + actionsStart, findings, listing);
                    decoded++;
                }
                else if (whole is not null)
                {
                    whole.Add(DecodeWhole(plans, plan, timestamp, payload, actions, bufferOffset + actionsStart, findings));
                    decoded++;
                }
                else if (DecodeAnalysed(plans, plan, timestamp, payload, actions, bufferOffset + recordStart, findings, analysed!))
                {
                    decoded++;
                }
            }
            catch (XelDamageException e)
            {
                findings.Add(new XelFinding(bufferOffset + payloadStart + e.Position, $"{plan.Class.Name}: {e.Message}; event skipped"));
            }
        }

        return decoded;
    }

    private XeEvent DecodeWhole(XelPlans plans, XelEventPlan plan, DateTime timestamp, ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, long actionsOffset, List<XelFinding> findings)
    {
        var fields = new XeValue[plan.Columns.Length];
        var fixedEnd = -1;
        for (var i = 0; i < fields.Length; i++)
        {
            var column = plan.Columns[i];
            var value = column.Decode(ColumnBytes(column, payload, ref fixedEnd, plan.Columns), out var text);
            fields[i] = new XeValue(column.Name, column.Package, column.TypeName, value, text);
        }

        var list = new List<XeValue>();
        for (var walk = new XelActionWalk(actions); walk.Next(out var id, out var bytes, out var offset);)
        {
            if (ActionPlan(plans, id, walk.Index, bytes.Length, actionsOffset + offset, findings) is not { } action)
            {
                continue;
            }

            // A value whose length does not match its type's size is kept as its bytes rather than misread.
            string? text = null;
            var value = action.Fits(bytes.Length) ? action.Decode(bytes, out text) : bytes.ToArray();
            list.Add(new XeValue(action.Name, action.Package, action.TypeName, value, text));
        }

        return new XeEvent(plan.Class.Name, plan.Class.Package, timestamp, fields, list);
    }

    /// <summary>
    /// What <see cref="DecodeWhole"/> makes of a record, told to <paramref name="listing"/> as it is read: the same
    /// values, problems and damage, with no object per event or value.
    /// </summary>
    private void DecodeListed(XelPlans plans, XelEventPlan plan, DateTime timestamp, ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, long actionsOffset, List<XelFinding> findings, IXeEventListing listing)
    {
        var listed = listing.Begin(plan.Shape, timestamp);
        try
        {
            var fixedEnd = -1;
            var inside = payload.Length >= plan.ColumnsEnd;
            foreach (var column in plan.Columns)
            {
                // Fixed-size columns inside the payload (checked once per record) are sliced without ColumnBytes' checks.
                var bytes = inside ? payload.Slice(column.Offset, column.Size) : ColumnBytes(column, payload, ref fixedEnd, plan.Columns);
                if (listed)
                {
                    column.List(listing, bytes);
                }
            }
        }
        catch (XelDamageException)
        {
            listing.Abandon();
            throw;
        }

        for (var walk = new XelActionWalk(actions); walk.Next(out var id, out var bytes, out var offset);)
        {
            if (ActionPlan(plans, id, walk.Index, bytes.Length, actionsOffset + offset, findings) is not { } action || !listed)
            {
                continue;
            }

            // A value whose length does not match its type's size is kept as its bytes rather than misread.
            if (action.Fits(bytes.Length))
            {
                action.List(listing, bytes);
            }
            else
            {
                listing.Binary(action.Shape, bytes);
            }
        }

        listing.End();
    }

    private bool DecodeAnalysed(XelPlans plans, XelEventPlan plan, DateTime timestamp, ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, long recordOffset, List<XelFinding> findings, TraceEventList analysed)
    {
        _fields.Clear();
        var actionsOffset = recordOffset + XelLayout.RecordHeaderSize + payload.Length;

        // A wait whose columns are plain is mapped from their bytes (its session first, from the actions); one the rule
        // does not vouch for is decoded the general way, its actions already read: a plain wait has no session column,
        // so the order of its columns and actions does not matter.
        if (_waitShortcut && plan.Wait is { } wait && payload.Length >= plan.AnalysedEnd)
        {
            ReadActions(plans, actions, actionsOffset, findings);
            if (wait.TryMap(plan.Kind, timestamp, payload, _fields.SessionId, out var outcome, out var waitEvent))
            {
                if (outcome == XeMappingOutcome.Event)
                {
                    analysed.Add(waitEvent!);
                }

                return true;
            }

            ReadColumns(plan, payload);
        }
        else
        {
            ReadColumns(plan, payload);
            ReadActions(plans, actions, actionsOffset, findings);
        }

        switch (XeEventMapping.Map(plan.Kind, plan.Class.Name, timestamp, _fields, _parser, out var traceEvent, out var problem))
        {
            case XeMappingOutcome.Event:
                analysed.Add(traceEvent!);
                return true;
            case XeMappingOutcome.NotAnalysed:
                return true;
            default:
                findings.Add(new XelFinding(recordOffset, problem!));
                return false;
        }
    }

    /// <summary>An analysed event's analysed columns into the fields.</summary>
    private void ReadColumns(XelEventPlan plan, ReadOnlySpan<byte> payload)
    {
        // An event BackupXe does not analyse (logins, batches...) has no column read: its payload is skipped unread.
        // Fixed-size columns inside the payload (checked once per record) are sliced without ColumnBytes' checks.
        if (payload.Length >= plan.AnalysedEnd)
        {
            var columns = plan.Analysed;
            if (plan.Opcode is { } opcode)
            {
                opcode.DecodeInto(_fields, payload.Slice(opcode.Offset, opcode.Size));
                columns = _fields.IsBeginOpcode ? plan.BeginColumns : plan.EndColumns;
            }

            foreach (var column in columns)
            {
                column.DecodeInto(_fields, payload.Slice(column.Offset, column.Size));
            }

            return;
        }

        var fixedEnd = -1;
        foreach (var column in plan.Analysed)
        {
            column.DecodeInto(_fields, ColumnBytes(column, payload, ref fixedEnd, plan.Columns));
        }
    }

    /// <summary>An analysed event's actions into the fields: the first session_id action (a data field would win over it).</summary>
    private void ReadActions(XelPlans plans, ReadOnlySpan<byte> actions, long actionsOffset, List<XelFinding> findings)
    {
        for (var walk = new XelActionWalk(actions); walk.Next(out var id, out var bytes, out var offset);)
        {
            if (ActionPlan(plans, id, walk.Index, bytes.Length, actionsOffset + offset, findings) is { Field: not XeField.None } action && action.Fits(bytes.Length)
                && !_fields.Holds(action.Field))
            {
                action.DecodeInto(_fields, bytes);
            }
        }
    }

    /// <param name="index">Where the action is in its event's list.</param>
    private XelValuePlan? ActionPlan(XelPlans plans, uint id, int index, int length, long offset, List<XelFinding> findings)
    {
        if (index < RememberedActions && ReferenceEquals(_actionsOf, plans) && _actionIds[index] == id && _actionPlans[index] is { } remembered)
        {
            return remembered;
        }

        if (plans.Action(id) is { } action)
        {
            if (index < RememberedActions)
            {
                if (!ReferenceEquals(_actionsOf, plans))
                {
                    Array.Clear(_actionPlans);
                    _actionsOf = plans;
                }

                (_actionIds[index], _actionPlans[index]) = (id, action);
            }

            return action;
        }

        // The length is explicit, so an action the metadata does not describe can be stepped over safely.
        Say(findings, new XelFinding(offset, $"action id 0x{id:X8} is not in the file's metadata; its values ({length} bytes here) are skipped", id));
        return null;
    }

    private void Say(List<XelFinding> findings, XelFinding finding)
    {
        if (_onceSaid.Add(finding.Once))
        {
            findings.Add(finding);
        }
    }

    /// <summary>The bytes of one column in a payload, checked against the payload's length.</summary>
    private static ReadOnlySpan<byte> ColumnBytes(XelValuePlan column, ReadOnlySpan<byte> payload, ref int fixedEnd, XelValuePlan[] columns)
    {
        if (column.IsVariable)
        {
            if (column.Offset + 8 > payload.Length)
            {
                throw new XelDamageException(Math.Min(column.Offset, payload.Length), $"{column.Name} descriptor at {column.Offset} lies past the {payload.Length}-byte payload");
            }

            var reader = new XelSpanReader(payload, column.Offset);
            var dataOffset = reader.U32();
            var length = reader.U32();
            if ((ulong)dataOffset + length > (ulong)payload.Length)
            {
                throw new XelDamageException(column.Offset, $"{column.Name} ({length} bytes at {dataOffset}) runs past the {payload.Length}-byte payload");
            }

            return payload.Slice((int)dataOffset, (int)length);
        }

        var size = column.Size;
        if (size == XelValuePlan.RunsToFixedEnd)
        {
            if (fixedEnd < 0)
            {
                fixedEnd = FixedEnd(payload, columns);
            }

            size = Math.Max(0, fixedEnd - column.Offset);
        }

        if (column.Offset + size > payload.Length)
        {
            // Located at the column, or at the payload's end when the metadata places the column beyond it.
            throw new XelDamageException(Math.Min(column.Offset, payload.Length), $"{column.Name} ({size} bytes at {column.Offset}) runs past the {payload.Length}-byte payload");
        }

        return payload.Slice(column.Offset, size);
    }

    /// <summary>Where the variable data starts: the fixed area ends there (or at the payload's end without any).</summary>
    private static int FixedEnd(ReadOnlySpan<byte> payload, XelValuePlan[] columns)
    {
        var end = payload.Length;
        foreach (var column in columns)
        {
            if (column.IsVariable && column.Offset + 8 <= payload.Length)
            {
                end = (int)Math.Min(end, new XelSpanReader(payload, column.Offset).U32());
            }
        }

        return end;
    }
}

/// <summary>
/// The actions of one record, already framed: (id, value bytes, offset of the id in the list). Read by
/// <see cref="Next"/> rather than as an enumerator, whose copy of itself and of each value, made as they were
/// written, cost a stalled read per event (docs/performance.md, "Decoding .xel").
/// </summary>
internal ref struct XelActionWalk(ReadOnlySpan<byte> actions)
{
    private readonly ReadOnlySpan<byte> _actions = actions;
    private int _position;

    /// <summary>Where the action <see cref="Next"/> gave last is in the list (0 for the first).</summary>
    public int Index { get; private set; } = -1;

    /// <returns>False at the end of the list.</returns>
    public bool Next(out uint id, out ReadOnlySpan<byte> bytes, out int offset)
    {
        var reader = new XelSpanReader(_actions, _position);
        offset = _position;
        id = reader.U32();
        var length = (int)reader.U32();
        if (id == XelLayout.ActionListEnd && length == 0)
        {
            bytes = default;
            return false;
        }

        bytes = reader.Bytes(length);
        _position = reader.Position;
        Index++;
        return true;
    }
}
