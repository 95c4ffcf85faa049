import ArgumentParser
import Jansson
import JSONRPC
import SwitchboardHost
#if canImport(Glibc)
import Glibc
#endif

/// `switchboard replay FILE`: sends a recording's requests to a fresh host and reports each answer that differs.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a --record file against a fresh in-memory host; exit 0 when every answer matches.",
        discussion: """
            The host runs with the recording's own flags (its header's args: now, chatUser, account, \
            simulate) on the in-memory backend, without plugins. Each request is sent once the frames \
            that came before it in the recording have come again. Answers are compared by id, \
            notifications by method; paths listed in the header's "volatile" (and with --volatile) are \
            not compared. Each difference is one line on stdout; exit 1 when there is any.
              switchboard --backend memory --now 2026-01-01T09:00:00Z --record session.jsonl
              switchboard replay session.jsonl --volatile 'result.items[*].date'
            """
    )

    @Argument(help: "A file written by `switchboard --record FILE`.")
    var file: String

    @Option(help: ArgumentHelp("A path not to compare, e.g. result.items[*].date or params.sentAt (repeatable).", valueName: "path"))
    var volatile: [String] = []

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = try logging.makeLogger()
        let paths = try volatile.map { text in
            guard let path = VolatilePath(text) else { throw ValidationError("--volatile \(text) is not a path such as result.items[*].date") }
            return path
        }
        let recording: Recording
        let store: StoreConfiguration
        do {
            recording = try Recording(path: file)
            store = try StoreConfiguration(replaying: recording.args)
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            throw ExitCode.failure
        }
        let services = DomainServices(options: store, logger: logger)
        let dispatcher = try HostRegistry.make(services: services).freeze()
        let report = Replayer.replay(recording, dispatcher: dispatcher, logger: logger, extraVolatile: paths)
        for difference in report.differences { writeLine(difference, to: STDOUT_FILENO) }
        let verdict = report.matches ? "all match" : "\(report.differences.count) differ"
        writeLine("replay: \(report.answersCompared) answers and \(report.notificationsCompared) notifications compared, \(verdict)",
                  to: STDOUT_FILENO)
        if !report.matches { throw ExitCode.failure }
    }
}
