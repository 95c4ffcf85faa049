import Jansson

/// One line typed at the prompt: `METHOD [PARAMS]`, where PARAMS is JSON text (`{"limit": 3}`) or
/// `key=value` words (``ParamShorthand``); or one of the prompt's own words, `help [PREFIX]` and `quit`.
public enum PromptCommand: Equatable {
    case empty
    case help(prefix: String?)
    case quit
    case call(method: String, params: JSONValue?)
    /// The line could not be read; the message says why.
    case invalid(String)

    public init(line: String) {
        let trimmed = line.trimmingWhitespace
        guard !trimmed.isEmpty else { self = .empty; return }
        let method = String(trimmed.prefix { !$0.isWhitespace })
        let rest = String(trimmed.dropFirst(method.count)).trimmingWhitespace
        switch method {
        case "help", "?":
            self = .help(prefix: rest.isEmpty ? nil : rest)
        case "quit", "exit":
            self = .quit
        default:
            self = Self.call(method, rest: rest)
        }
    }

    private static func call(_ method: String, rest: String) -> PromptCommand {
        guard !rest.isEmpty else { return .call(method: method, params: nil) }
        let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        if ParamShorthand.applies(to: words) {
            do {
                return .call(method: method, params: try ParamShorthand.params(from: words))
            } catch {
                return .invalid(error.description)
            }
        }
        do {
            return .call(method: method, params: try JSONValue(parsing: rest))
        } catch {
            return .invalid("params are neither JSON nor key=value words: \(error)")
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return String(self[start..<max(start, end)])
    }
}
