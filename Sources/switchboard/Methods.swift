import ArgumentParser
import Logging
import Jansson
import JSONRPC
import SwitchboardHost

/// `switchboard methods`: every method with its one-line summary.
struct Methods: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "methods", abstract: "List every method with a one-line summary.")

    @Flag(help: "Print the list as JSON (what host.methods answers).")
    var json = false

    func run() throws {
        let entries = try HostRegistry.make(services: DomainServices(options: StoreConfiguration(), logger: LoggingOptions.makeLogger(level: .warning))).freeze().entries
        if json {
            let list: [JSONValue] = entries.map {
                ["name": .string($0.name), "summary": .string($0.summary), "kind": .string($0.kind.rawValue)]
            }
            writeLine(JSONValue.array(list).jsonText(pretty: true), to: 1)
            return
        }
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let padding = String(repeating: " ", count: width - entry.name.count)
            writeLine("\(entry.name)\(padding)  \(entry.summary)", to: 1)
        }
    }
}
