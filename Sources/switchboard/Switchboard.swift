import ArgumentParser
import SwitchboardHost
#if canImport(Glibc)
import Glibc
#endif

/// `switchboard`: a JSON-RPC 2.0 host on stdio. With no subcommand it serves.
struct Switchboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "A scriptable JSON-RPC 2.0 host: speak to it over stdin/stdout.",
        discussion: """
            With no subcommand, switchboard serves JSON-RPC on stdin/stdout (same as `switchboard serve`):
              printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"host.ping"}' | switchboard
            With a terminal on stdin it opens an interactive prompt instead: type `inbox.list limit=3`.
            """,
        version: "0.1.0",
        subcommands: [Serve.self, Call.self, Methods.self, Seed.self, Replay.self],
        defaultSubcommand: Serve.self
    )
}

/// The position (from 1) of the first command-line argument that is not UTF-8: `CommandLine.arguments`
/// turns such bytes into U+FFFD, so a path would name another file and params would carry other text,
/// silently (serve mode refuses such input with -32700).
func firstArgumentNotUTF8() -> Int? {
    for index in 1..<Int(CommandLine.argc) {
        guard let argument = CommandLine.unsafeArgv[index] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
        if String(validating: bytes, as: UTF8.self) == nil { return index }
    }
    return nil
}

/// The entry point. A bare `switchboard` — what editors and scripts start — serves with the default
/// options without running the argument parser: its reflection is most of a Swift program's start-up
/// time, and start-up is what a client waits for. So do `switchboard --db FILE` with the other store
/// options (``Serve/quick(_:)``) and a plain one-shot `call` (``Call/quick(_:)``). Anything else goes
/// through the parser.
@main
enum Main {
    static func main() {
        // A file-size limit (RLIMIT_FSIZE) must fail a write with EFBIG, which SQLite reports, rather
        // than kill the host; plugins still start with default dispositions.
        signal(SIGXFSZ, SIG_IGN)
        for name in LocaleEnvironment.dropMalformed() {
            writeLine("switchboard: \(name) is no locale name (language[_TERRITORY][.codeset]); ignored", to: STDERR_FILENO)
        }
        guard CommandLine.arguments.count == 1 else {
            if let position = firstArgumentNotUTF8() {
                writeLine("switchboard: argument \(position) is not UTF-8 (bytes of another encoding); give it as UTF-8", to: STDERR_FILENO)
                exit(64)
            }
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let code = Call.quick(arguments) ?? Serve.quick(arguments) { exit(code) }
            rejectUnknownSubcommand(CommandLine.arguments[1])
            Switchboard.main()
            return
        }
        do {
            exit(try Serve.serve(host: HostOptions(), store: StoreConfiguration(), readRoots: AccessOptions.defaultRoots(),
                                 logLevel: LoggingOptions.level(nil)))
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            exit(1)
        }
    }
}

/// A first argument that is neither an option nor a subcommand would be read as an argument of the
/// default `serve`, whose usage would then mislead: list the subcommands instead, and exit 64.
func rejectUnknownSubcommand(_ first: String) {
    let names = Switchboard.configuration.subcommands.map { $0.configuration.commandName ?? "" } + ["help"]
    guard !first.hasPrefix("-"), !names.contains(first) else { return }
    writeLine("Error: unknown subcommand '\(first)'\n", to: STDERR_FILENO)
    writeLine(Switchboard.helpMessage(), to: STDERR_FILENO)
    exit(64)
}
