import CJansson
import Jansson

/// The `error` member of a JSON-RPC response: a code, a one-sentence message and optional data.
///
/// Handlers throw it to answer with a specific error; anything else they throw becomes `-32603`.
public struct ResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var data: JSONValue?
    /// Whether this error says what the request's writes did (some stored, or a commit of unknown
    /// outcome): a request cancelled meanwhile is answered this error, not a bare `-32800`, which
    /// tells a client nothing was done. Not on the wire.
    public var reportsWrites: Bool

    public init(code: ErrorCode, message: String, data: JSONValue? = nil, reportsWrites: Bool = false) {
        self.code = code
        self.message = message
        self.data = data
        self.reportsWrites = reportsWrites
    }

    public var description: String { "\(message) (\(code))" }
}

extension ResponseError {
    /// jansson's reason quotes the text near where it failed: not when `text` names a secret member
    /// (``secretMembers``), as the quote could be the secret (an unclosed or badly escaped password).
    public static func parseError(_ error: JSONParseError, in text: UnsafeRawBufferPointer) -> ResponseError {
        let reason = holdsSecretMember(text) ? error.problem : error.reason
        return ResponseError(
            code: .parseError,
            message: "Parse error: \(reason) at line \(error.line), column \(error.column)",
            data: ["reason": .string(reason), "line": .integer(Int64(error.line)),
                   "column": .integer(Int64(error.column)), "offset": .integer(Int64(error.offset))]
        )
    }

    /// Whether `text` holds a secret member's name in quotes, as a member name is written, or any
    /// `\u` escape (a name spelled with one, `"pass\u0077ord"`, is the same name).
    static func holdsSecretMember(_ text: UnsafeRawBufferPointer) -> Bool {
        text.firstRange(of: Array("\\u".utf8)) != nil || secretMembers.contains { text.firstRange(of: Array("\"\($0)\"".utf8)) != nil }
    }

    public static func parseError(_ reason: String) -> ResponseError {
        ResponseError(code: .parseError, message: "Parse error: \(reason)")
    }

    public static func invalidRequest(_ reason: String, data: JSONValue? = nil) -> ResponseError {
        ResponseError(code: .invalidRequest, message: "Invalid Request: \(reason)", data: data)
    }

    /// Quotes a long name only in part (``JSONFieldError/excerpt(_:limit:)``).
    public static func methodNotFound(_ method: String) -> ResponseError {
        let name = JSONFieldError.excerpt(method)
        return ResponseError(code: .methodNotFound, message: "Method not found: \(name)", data: ["method": .string(name)])
    }

    /// Params whose values no error quotes, however wrong: a password (`mail.login`) is not repeated
    /// in an answer, which clients log and `--record` keeps.
    public static let secretMembers: Set<String> = ["password"]

    public static func invalidParams(_ problem: JSONFieldError) -> ResponseError {
        var problem = problem
        let member = problem.field.split(separator: ".").last.map(String.init) ?? ""
        if secretMembers.contains(member) { problem.got = "a secret, not quoted" }
        return ResponseError(
            code: .invalidParams,
            message: "Invalid params: \(problem)",
            data: ["field": .string(problem.field), "expected": .string(problem.expected), "got": .string(problem.got)]
        )
    }

    public static func invalidParams(_ reason: String) -> ResponseError {
        ResponseError(code: .invalidParams, message: "Invalid params: \(reason)")
    }

    public static func internalError(_ reason: String, data: JSONValue? = nil) -> ResponseError {
        ResponseError(code: .internalError, message: "Internal error: \(reason)", data: data)
    }

    public static var cancelled: ResponseError {
        ResponseError(code: .requestCancelled, message: "Request cancelled")
    }

    /// The drain's answer at exit to a request that still runs after its cancel: unlike a plain
    /// ``cancelled``, it cannot promise that nothing was written.
    static var abandoned: ResponseError {
        ResponseError(code: .requestCancelled, message: "Request cancelled: it still ran when the host stopped, so what it wrote, if anything, is unknown",
                      reportsWrites: true)
    }

    /// Maps anything a handler threw to the error the client sees.
    public init(_ error: any Error) {
        switch error {
        case let error as ResponseError: self = error
        case let error as JSONFieldError: self = .invalidParams(error)
        case is CancellationError: self = .cancelled
        default:
            self = .internalError("\(error)", data: ["type": .string(String(describing: type(of: error)))])
        }
    }

    /// The error object as a jansson value.
    func makeJansson() -> JanssonValue {
        let object = JanssonValue.object()
        object.set("code", taking: json_integer(json_int_t(code.rawValue)))
        object.set("message", taking: JanssonValue.makeString(message))
        if let data { object.set("data", taking: data.makeJanssonPointer()) }
        return object
    }
}
