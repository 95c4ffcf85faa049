import ArgumentParser
import Logging
#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import PluginHost
import SwitchboardCore
import SwitchboardHost
import SwitchboardTerminal

/// `switchboard serve`: JSON-RPC 2.0 on stdin/stdout until end of input, `exit` or a signal.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve JSON-RPC 2.0 on stdin/stdout (the default).",
        discussion: """
            Framing is detected from the first bytes: LSP-style `Content-Length:` headers, else one JSON \
            message per line. Logs go to stderr; stdout carries frames only. On end of input, `exit` or \
            SIGTERM/SIGINT the host lets in-flight requests finish for --drain-timeout, cancels the rest \
            and exits. A SQLite database is \
            opened on the first domain request; while it cannot be, domain requests answer -32050 \
            {path, cause} and the next one tries again; writes to a read-only database answer -32051. \
            A PostgreSQL server that cannot be reached at start ends the host with exit 1 and one line; \
            once it has started, requests during an outage answer -32050.
            """
    )

    @Option(help: "Force the framing: ndjson or lsp (default: detect from the first bytes).")
    var framing: Framing?

    @Option(help: "Largest message accepted, in bytes.")
    var maxMessageBytes: Int = ConnectionLimits().maxMessageBytes

    @Option(help: "Most messages in one batch.")
    var maxBatch: Int = ConnectionLimits().maxBatchLength

    @Option(help: "Deepest nesting of arrays and objects in a message (at most 2048, jansson's own limit).")
    var maxDepth: Int = ConnectionLimits().maxNestingDepth

    @Option(help: "Requests running at once; past it the host stops reading input.")
    var maxInFlight: Int = ConnectionLimits().maxInFlight

    @Option(help: "Output bytes that may wait for the client to read them; past it answers wait and pushed notifications are dropped (then counted in $/notificationsDropped).")
    var maxOutputBytes: Int = ConnectionLimits().maxOutputBytes

    @Option(help: "At end of input, exit or SIGTERM/SIGINT, milliseconds to let in-flight requests finish before cancelling them.")
    var drainTimeout: Int = HostOptions().drainTimeoutMilliseconds

    @Option(help: "Milliseconds an LSP message may stay half-received before it is answered as truncated (0: no limit).")
    var frameTimeout: Int = HostOptions().frameTimeoutMilliseconds

    @Option(help: ArgumentHelp(
        "Write every frame in and out to FILE, as JSON lines with timestamps, for `switchboard replay FILE`.",
        valueName: "file"
    ))
    var record: String?

    @Flag(help: "Serve JSON-RPC even when stdin is a terminal, instead of opening the interactive prompt.")
    var raw = false

    @OptionGroup var store: StoreOptions
    @OptionGroup var access: AccessOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var plugins: PluginOptions

    func validate() throws {
        for (name, value) in [("--max-message-bytes", maxMessageBytes), ("--max-batch", maxBatch),
                              ("--max-depth", maxDepth), ("--max-in-flight", maxInFlight),
                              ("--max-output-bytes", maxOutputBytes)] where value < 1 {
            throw ValidationError("\(name) must be at least 1, got \(value)")
        }
        if maxDepth > JSONParser.maximumDepth {
            throw ValidationError("--max-depth can be at most \(JSONParser.maximumDepth), the deepest jansson parses; got \(maxDepth)")
        }
        for (name, value) in [("--drain-timeout", drainTimeout), ("--frame-timeout", frameTimeout)] where !(0...3_600_000).contains(value) {
            throw ValidationError("\(name) must be 0...3600000 milliseconds, got \(value)")
        }
    }

    func run() throws {
        let options = HostOptions(
            framing: framing,
            limits: ConnectionLimits(maxMessageBytes: maxMessageBytes, maxBatchLength: maxBatch,
                                     maxNestingDepth: maxDepth, maxInFlight: maxInFlight,
                                     maxOutputBytes: maxOutputBytes),
            drainTimeoutMilliseconds: drainTimeout,
            frameTimeoutMilliseconds: frameTimeout,
            recorder: try record.map { try FrameRecorder(path: $0, args: store.configuration.recordingArgs()) }
        )
        Glibc.exit(try Self.serve(host: options, store: store.configuration, readRoots: access.readRoots(),
                                  logLevel: logging.resolvedLevel(), plugins: plugins.launch, raw: raw))
    }

    /// Runs the host on stdio and returns its exit code; shared by `serve` and a bare `switchboard`.
    /// When stdin is a terminal (and not `raw`), a person gets the interactive prompt instead.
    static func serve(host: HostOptions, store: StoreConfiguration, readRoots: ReadRoots, logLevel: Logger.Level,
                      plugins launch: PluginLaunch = PluginLaunch(), raw: Bool = false) throws -> Int32 {
        try store.validate()
        let logger = LoggingOptions.makeLogger(level: logLevel)
        // A PostgreSQL server that cannot be reached is one error at start, naming it, and exit 1.
        if case .postgres = store.location {
            do {
                try store.checkStorage()
            } catch {
                writeLine("switchboard: \(error)", to: STDERR_FILENO)
                return 1
            }
        }
        // A database named with --db is checked at start (cheaply, without opening it). The session
        // still starts: host.* works, and domain requests answer -32050 until the file is usable.
        else if store.db != nil {
            do {
                try store.checkStorage()
            } catch {
                writeLine("switchboard: warning: \(error); domain requests will answer -32050 until that is fixed", to: STDERR_FILENO)
            }
        }
        let services = DomainServices(options: store, logger: logger)
        // Plugins may take no namespace of the host's own methods (asked only when there are plugins).
        let plugins = launch.makeSupervisor(limits: host.limits,
                                            policy: NamespacePolicy(hostMethods: HostRegistry.make(services: services, readRoots: readRoots).names),
                                            logger: logger)
        if !raw, isatty(STDIN_FILENO) != 0 {
            signal(SIGPIPE, SIG_IGN)
            let dispatcher = try HostRegistry.make(services: services, readRoots: readRoots, plugins: plugins).freeze()
            let prompt = TerminalPrompt(dispatcher: dispatcher, limits: host.limits, logger: logger, style: .fromEnvironment(), recorder: host.recorder)
            let code = try prompt.run { connection in
                plugins.attach(client: connection)
                if launch.eager { plugins.startAll() }
            }
            plugins.shutdownBlocking()
            return code
        }
        let code = try StdioHost.run(options: host, logger: logger) {
            HostRegistry.make(environment: $0, services: services, readRoots: readRoots, plugins: plugins)
        } onConnection: { connection in
            plugins.attach(client: connection)
            if launch.eager { plugins.startAll() }
        }
        plugins.shutdownBlocking()
        return code
    }
}

extension Framing: ExpressibleByArgument {}
