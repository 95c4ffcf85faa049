import CICURegex
import Synchronization

/// A JSON Schema `pattern`, compiled once by ICU and searched for anywhere in a string (JSON Schema's
/// patterns are not anchored), each search bounded in engine steps and backtracking memory, and
/// stopped when its task is cancelled: a pattern such as `(a+)+$` cannot hold a thread for long.
///
/// - Important: ICU's syntax is close to ECMA-262's (what JSON Schema specifies) but not the same:
///   `\d` and `\w` take Unicode digits and letters too.
final class CompiledPattern: @unchecked Sendable {
    /// Only cloned, never matched on: each search runs on a clone of its own (ICU's rule for threads).
    private let regex: OpaquePointer

    /// Compiles `source`; ICU's error name (never the pattern) when it does not compile.
    static func compile(_ source: String) -> Result<CompiledPattern, PatternError> {
        var source = source
        var errorName: UnsafePointer<CChar>?
        let regex = source.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { sb_regex_compile($0.baseAddress, $0.count, &errorName) }
        }
        guard let regex else { return .failure(.doesNotCompile(errorName.map { String(cString: $0) } ?? "unknown error")) }
        return .success(CompiledPattern(regex))
    }

    private init(_ regex: OpaquePointer) { self.regex = regex }

    deinit { sb_regex_close(regex) }

    /// Whether the pattern matches somewhere in `text`, taking at most what `budget` has left.
    func search(_ text: String, budget: ValidationBudget) -> Result<Bool, PatternError> {
        guard let clone = sb_regex_clone(regex) else { return .failure(.tooMuchMemory) }
        defer { sb_regex_close(clone) }
        var text = text
        var used: Int32 = 0
        let limit = budget.ticksLeft
        guard limit > 0 else { return .failure(.tooSlow) }
        let outcome = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                sb_regex_search(clone, $0.baseAddress, $0.count, limit, Self.stackBytes, { !Task.isCancelled }, &used)
            }
        }
        budget.spend(used)
        switch outcome {
        case sb_regex_found: return .success(true)
        case sb_regex_not_found: return .success(false)
        case sb_regex_out_of_time: return .failure(.tooSlow)
        case sb_regex_out_of_memory: return .failure(.tooMuchMemory)
        case sb_regex_stopped: return .failure(.cancelled)
        default: return .failure(.failed)
        }
    }

    /// Backtracking memory one search may take (a quarter of ICU's default): at most `--max-in-flight`
    /// searches run at once.
    static let stackBytes: Int32 = 2 << 20
}

/// Why a pattern gave no answer.
enum PatternError: Error, Equatable {
    case doesNotCompile(String)
    /// The validation's ticks ran out (``ValidationBudget``).
    case tooSlow
    case tooMuchMemory
    /// The task was cancelled.
    case cancelled
    case failed
}

/// Patterns compiled once for a validator, so a schema's patterns are compiled once, not per check.
final class PatternCache: Sendable {
    private let compiled = Mutex<[String: Result<CompiledPattern, PatternError>]>([:])

    func pattern(_ source: String) -> Result<CompiledPattern, PatternError> {
        if let known = compiled.withLock({ $0[source] }) { return known }
        let made = CompiledPattern.compile(source)
        return compiled.withLock { compiled in
            if let raced = compiled[source] { return raced }
            compiled[source] = made
            return made
        }
    }
}
