import ArgumentParser
import Jansson
import JSONRPC
import SwitchboardCore
import SwitchboardHost
#if canImport(Glibc)
import Glibc
#endif

/// `switchboard call METHOD [PARAMS]`: one call in-process, no envelope to write.
struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call one method in-process and print its result as pretty JSON.",
        discussion: """
            Prints the result on stdout and exits 0, or prints the JSON-RPC error on stderr and exits 1.
            Notifications the method sends while it runs (progress) go to stderr, one per line.
              switchboard call host.echo '{"hello":"world"}'
            """
    )

    @Argument(help: "The method, e.g. host.ping.")
    var method: String

    @Argument(help: "The params as JSON text: an object or an array.")
    var params: String?

    @OptionGroup var store: StoreOptions
    @OptionGroup var access: AccessOptions
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = try logging.makeLogger()
        var parsed: JSONValue?
        if let params {
            do {
                parsed = try JSONValue(parsing: params)
            } catch {
                throw ValidationError("PARAMS is not valid JSON: \(error)")
            }
        }
        // A domain call fails at start, in one line, when the database cannot be used.
        if !["host.", "rpc."].contains(where: method.hasPrefix) {
            do {
                try store.configuration.checkStorage()
            } catch {
                writeLine("switchboard: \(error)", to: STDERR_FILENO)
                throw ExitCode.failure
            }
        }
        let services = LazyServices(options: store.configuration, logger: logger)
        let dispatcher = try HostRegistry.make(services: services, readRoots: access.readRoots()).freeze()
        let outcome = InProcessCall.callBlocking(method, params: parsed, dispatcher: dispatcher, logger: logger) { note in
            writeLine(note.jsonText(), to: STDERR_FILENO)
        }
        if let result = outcome.result {
            writeLine(result.jsonText(pretty: true), to: STDOUT_FILENO)
        } else {
            writeLine((outcome.error ?? outcome.response).jsonText(pretty: true), to: STDERR_FILENO)
            throw ExitCode.failure
        }
    }
}

/// Writes `text` and a newline to `fd`, bypassing Swift's buffered `print`.
func writeLine(_ text: String, to fd: Int32, newline: Bool = true) {
    let bytes = Array(text.utf8) + (newline ? [0x0A] : [])
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 { if errno == EINTR { continue } else { return } }
            offset += written
        }
    }
}
