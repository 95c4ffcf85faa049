import Jansson
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

extension Call {
    /// `switchboard call METHOD [PARAMS…]` with at most the store options ``QuickArguments`` reads, run
    /// without ArgumentParser. Returns the exit code, or `nil` for anything else (help, another option,
    /// a value it refuses): the parser then takes the command line and answers it as it always did.
    static func quick(_ arguments: [String]) -> Int32? {
        guard arguments.count >= 2, arguments[0] == "call", !arguments[1].hasPrefix("-"),
              let quick = QuickArguments(arguments.dropFirst(2)) else { return nil }
        let store = quick.store, words = quick.words
        let params: JSONValue?
        do {
            params = try parsedParams(words)
        } catch {
            return nil
        }
        guard let level = try? LoggingOptions.level(nil) else { return nil }
        do {
            try call(arguments[1], params: params, store: store, readRoots: AccessOptions.defaultRoots(),
                     logger: LoggingOptions.makeLogger(level: level))
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            return 1
        }
    }
}
