import Glibc
import SwitchboardHost

extension Serve {
    /// `switchboard [serve] [--db FILE] …` with at most the store options ``QuickArguments`` reads: serves
    /// as a bare `switchboard` does, with those options, without running ArgumentParser. Returns the exit
    /// code, or `nil` for anything else: the parser then takes the command line.
    static func quick(_ arguments: [String]) -> Int32? {
        let options = arguments.first == "serve" ? arguments.dropFirst() : arguments[...]
        guard let quick = QuickArguments(options), quick.words.isEmpty, let level = try? LoggingOptions.level(nil) else { return nil }
        do {
            return try serve(host: HostOptions(), store: quick.store, readRoots: AccessOptions.defaultRoots(), logLevel: level)
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            return 1
        }
    }
}
