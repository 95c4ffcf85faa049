import ArgumentParser

/// What a run does; the command line mirrors rpcbench's (`../shared/bench`), so one argument list drives both.
enum RunMode: String, ExpressibleByArgument, CaseIterable {
    /// Up to `--window` requests outstanding.
    case pipelined
    /// One request outstanding.
    case pingpong
    /// Spawn, write one request, close stdin, time spawn → first answer; many times.
    case startup
    /// Two processes of the same server: requests to one, notifications from the other (chat send → push).
    case push
}

extension Framing: ExpressibleByArgument {}

/// The pinning of rpcbench: `same` puts the driver and the server on CPU 0, `split` the server on 0, the driver on 1.
enum Pinning: String, ExpressibleByArgument, CaseIterable {
    case none, same, split
}

struct LoadOptions: ParsableArguments {
    @Option(help: "pipelined (a window of requests outstanding), pingpong (one), startup, or push.")
    var mode: RunMode = .pipelined

    @Flag(help: "The same as --mode startup (rpcbench's spelling).")
    var startup = false

    @Option(help: "Requests outstanding when pipelined; messages not yet pushed in push mode.")
    var window = 64

    @Option(name: .customShort("n"), help: "Measured requests (when no -d).")
    var count: UInt64 = 100_000

    @Option(name: .customShort("d"), help: "Send for SECONDS, then wait for the answers, instead of -n.")
    var duration: Double?

    @Option(help: "Unmeasured requests first (start-up: unmeasured spawns; default 1).")
    var warmup: UInt64?

    @Option(name: .customShort("r"), help: "Measured spawns in start-up mode.")
    var runs = 30

    @Option(help: "ndjson or lsp.")
    var framing: Framing = .ndjson

    @Option(help: "The request's method.")
    var method = "ping"

    @Option(help: "The request's params as JSON, or @FILE; in push mode each %ID% becomes a unique token.")
    var params: String?

    @Option(help: "A file of JSON messages (one a line) sent first; the answer to each request is awaited.")
    var preamble: String?

    @Flag(help: "Start-up: close stdin only after the answer.")
    var holdStdin = false

    @Option(help: "none, same (driver and server on CPU 0) or split.")
    var pin: Pinning = .none

    @Option(help: "Give up when nothing moved for this many seconds.")
    var timeout: Double = 30

    @Option(help: "Seconds to wait for the server to exit after EOF before SIGTERM.")
    var exitTimeout: Double = 5

    @Option(help: "Append the server's stderr to this file (default: inherited).")
    var serverStderr: String?

    @Option(help: "Print the first N answers to stderr.")
    var show = 0

    @Option(help: "A tag for the output.")
    var label: String?

    @Flag(help: "One JSON object on stdout instead of a line of text.")
    var json = false

    @Option(help: "Push: an argument added to the subscriber's command (repeat for more).")
    var subscriberArg: [String] = []

    @Option(help: "Push: the request that subscribes the second process.")
    var subscribeMethod = "chat.subscribe"

    @Option(help: "Push: its params (JSON).")
    var subscribeParams = "{}"

    @Option(help: "Push: the notification that carries a sent message.")
    var notification = "chat.message"

    @Option(help: "Push: the dotted path, in that notification, of the token the request carried.")
    var match = "params.message.clientMessageId"

    @Argument(parsing: .postTerminator, help: "The server command, after --.")
    var command: [String] = []

    var effectiveMode: RunMode { startup ? .startup : mode }

    mutating func validate() throws {
        guard !command.isEmpty else { throw ValidationError("no server command given (put it after --)") }
        guard window >= 1, window <= 1_000_000 else { throw ValidationError("--window must be 1...1000000") }
        guard runs >= 1 else { throw ValidationError("-r must be at least 1") }
        if let duration, duration <= 0 { throw ValidationError("-d must be positive") }
    }
}
