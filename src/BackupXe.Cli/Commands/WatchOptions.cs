using System.CommandLine;
using System.CommandLine.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe watch</c>'s options, the rules between them, and the <see cref="WatchSettings"/> they make.</summary>
internal sealed class WatchOptions
{
    /// <summary>An hour: a slower poll would show nothing a DBA watching a backup can use.</summary>
    private const double MaxPollSeconds = 3600;

    /// <summary>A day: no backup step is expected to sit longer without moving, and a longer limit names nothing.</summary>
    private const double MaxStallAfterSeconds = 86_400;

    private readonly ConnectionOptions _connection = new(serverRequired: false);
    private readonly HistoryOptions _history = new();
    private readonly Option<string> _sessionName = new("--session-name") { Description = "With --server: the capture session whose event_file is read.", DefaultValueFactory = _ => SessionName.Default };
    private readonly Option<string[]> _database = OperationFilter.DatabaseOption();
    private readonly Option<string?> _replay = new("--replay") { Description = "Replay a .xel / XE XML / ERRORLOG file through the live pipeline instead of connecting." };
    private readonly Option<double> _speed = Bounded(
        new Option<double>("--speed") { Description = "Replay speed: 1 = original timing, 10 = ten times faster, 0 = as fast as possible.", DefaultValueFactory = _ => 1 },
        ReplayEventSource.IsValidSpeed,
        value => $"--speed {ReplayEventSource.SpeedRule}; it is {value:R}.");

    private readonly Option<string> _format = OneOf(
        new Option<string>("--format", "-f")
        {
            Description = "console (default), json (one report object per line, as each operation ends) or html (progress on the console, "
                + "and a self-contained HTML report of every operation written to --output, complete at the end).",
            DefaultValueFactory = _ => "console",
        },
        "console", "json", "html");

    private readonly Option<string?> _output = new("--output", "-o") { Description = "With --format html: the HTML file to write." };
    private readonly Option<string> _transport = OneOf(
        new Option<string>("--transport")
        {
            Description = "With --server: file (the default) tails the session's event_file; stream (experimental) reads "
                + "sys.fn_MSxe_read_event_stream, with less latency but losing (and reporting) what is emitted while disconnected; "
                + "ring_buffer reads an existing session's ring_buffer target every 2 s (the Managed Instance route), reporting what it discarded before a read.",
            DefaultValueFactory = _ => LiveTransport.File,
        },
        LiveTransport.File, LiveTransport.Stream, LiveTransport.RingBuffer);

    private readonly Option<double> _pollRequests = Bounded(
        new Option<double>("--poll-requests")
        {
            Description = "With --server: read sys.dm_exec_requests again every SECONDS, so the percent of a backup that started before the watch "
                + "moves even without its events (0, the default: read once at the start).",
            DefaultValueFactory = _ => 0,
        },
        value => value is >= 0 and <= MaxPollSeconds,
        value => $"--poll-requests is {value:R}; it must be 0 (read once) or up to {MaxPollSeconds} seconds.");

    private readonly Option<double> _stallAfter = Bounded(
        new Option<double>("--stall-after")
        {
            Description = "Name a quiet period once an operation has moved no bytes and stayed in one phase for SECONDS: a stall in a phase "
                + "that moves bytes, expected waiting in one that moves none (zeroing, redo, recovery, upgrade). Default 300.",
            DefaultValueFactory = _ => Core.Correlation.ByteFlow.DefaultStallAfter.TotalSeconds,
        },
        value => value is >= 1 and <= MaxStallAfterSeconds,
        value => $"--stall-after is {value:R}; it must be from 1 to {MaxStallAfterSeconds} seconds.");

    private readonly Option<bool> _startSession = new("--start-session")
    {
        Description = "With --server: create and start the capture session for this watch only (STARTUP_STATE OFF), and stop and drop it "
            + "when the watch ends, so the server captures only while someone watches. The login's permission to create, start, stop "
            + "and drop it is checked before anything is created; a session of that name that already runs is read and left alone.",
    };

    private readonly Option<int?> _budget = CommonOptions.MemoryBudget();
    private readonly Option<bool> _noColor = CommonOptions.NoColor();

    public void AddTo(Command command)
    {
        foreach (var option in new Option[] { _database, _replay, _speed, _format, _output, _budget, _noColor, _sessionName, _pollRequests, _transport, _stallAfter, _startSession })
        {
            command.Options.Add(option);
        }

        _connection.AddTo(command);
        _history.AddTo(command);
        OutputTarget.MustNotOverwriteWhatIsRead(command, _output, result => [result.GetValue(_replay), .. OutputTarget.SqliteFiles(_history.PathOf(result))]);
        command.Validators.Add(Validate);
    }

    public WatchSettings Settings(ParseResult parse) => new()
    {
        Replay = parse.GetValue(_replay),
        Speed = parse.GetValue(_speed),
        Format = parse.GetValue(_format)!,
        Output = parse.GetValue(_output),
        Databases = OperationFilter.Names(parse.GetValue(_database)),
        MemoryBudgetBytes = CommonOptions.BudgetBytes(parse.GetValue(_budget)),
        NoColor = parse.GetValue(_noColor),
        SessionName = parse.GetValue(_sessionName)!,
        Transport = parse.GetValue(_transport)!,
        PollRequests = TimeSpan.FromSeconds(parse.GetValue(_pollRequests)),
        StallAfter = TimeSpan.FromSeconds(parse.GetValue(_stallAfter)),
        StartSession = parse.GetValue(_startSession),
        Connection = _connection.Of(parse),
        History = _history.ChoiceOf(parse),
    };

    private void Validate(CommandResult result)
    {
        var server = _connection.Server;

        // Silently preferring one would watch something the user did not ask for.
        if (result.GetValue(_replay) is not null && result.GetValue(server) is not null)
        {
            result.AddError("--replay and --server are exclusive: replay a capture or watch a server, not both.");
        }

        if (result.GetValue(_replay) is null && result.GetResult(_speed) is { Implicit: false })
        {
            result.AddError("--speed paces a replay; give --replay FILE with it.");
        }

        if (result.GetValue(server) is null && result.GetResult(_transport) is { Implicit: false })
        {
            result.AddError("--transport chooses how a server is read; give --server S with it.");
        }

        if (result.GetValue(server) is null && result.GetValue(_startSession))
        {
            result.AddError("--start-session creates a capture session on a server; give --server S with it.");
        }

        if (result.GetValue(_startSession) && result.GetValue(_transport) == LiveTransport.RingBuffer)
        {
            result.AddError("--start-session creates a session with an event_file target; --transport ring_buffer reads an existing session's ring_buffer target. Leave one out.");
        }

        if (result.GetValue(server) is null && result.GetResult(_pollRequests) is { Implicit: false })
        {
            result.AddError("--poll-requests reads a server's sys.dm_exec_requests; give --server S with it.");
        }
    }

    private static Option<string> OneOf(Option<string> option, params string[] values)
    {
        Choices.OneOf(option, values);
        return option;
    }

    /// <summary>The option with a range rule: its error when the value breaks it.</summary>
    private static Option<double> Bounded(Option<double> option, Func<double, bool> valid, Func<double, string> error)
    {
        option.Validators.Add(result =>
        {
            var value = result.GetValueOrDefault<double>();
            if (!valid(value))
            {
                result.AddError(error(value));
            }
        });
        return option;
    }
}
