import Jansson
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

extension Call {
    /// `switchboard call METHOD [PARAMS…]` with at most `--db`, `--now`, `--time-zone` and `--backend`
    /// (as `--name value`), run without ArgumentParser: its reflection over the command types (a
    /// protocol-conformance scan of the whole static binary) took about half of a one-shot call's CPU.
    /// Returns the exit code, or `nil` for anything else (help, another option, a value it refuses):
    /// the parser then takes the command line and answers it as it always did.
    static func quick(_ arguments: [String]) -> Int32? {
        guard arguments.count >= 2, arguments[0] == "call", !arguments[1].hasPrefix("-") else { return nil }
        var store = StoreConfiguration()
        var words: [String] = []
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("-") else {
                words.append(argument)
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { return nil }
            let value = arguments[index + 1]
            // A switch, not a Set: a Set's first use costs a conformance look-up over the whole binary.
            switch argument {
            case "--db": store.db = value
            case "--now": store.now = value
            case "--time-zone": store.timeZone = value
            case "--backend":
                guard let backend = StoreConfiguration.Backend(rawValue: value) else { return nil }
                store.backend = backend
            default: return nil
            }
            index += 2
        }
        let params: JSONValue?
        do {
            try store.validate()
            params = try parsedParams(words)
        } catch {
            return nil
        }
        guard let level = try? LoggingOptions.level(nil) else { return nil }
        do {
            return try call(arguments[1], params: params, store: store, readRoots: AccessOptions.defaultRoots(),
                            logger: LoggingOptions.makeLogger(level: level))
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            return 1
        }
    }
}
