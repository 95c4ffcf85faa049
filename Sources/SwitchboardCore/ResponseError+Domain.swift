import Jansson
import JSONRPC

extension ErrorCode {
    /// An item the request names does not exist.
    public static let notFound = ErrorCode(rawValue: -32004)
    /// A change-tracking state the host cannot calculate changes from: the client must reload.
    public static let stateMismatch = ErrorCode(rawValue: -32010)
}

extension ResponseError {
    /// `-32004`: the item does not exist; `data` names the field that pointed at it. `what` and `got`
    /// are quoted only in part when long (``JSONFieldError/excerpt(_:limit:)``).
    public static func notFound(_ what: String, field: String, got: String) -> ResponseError {
        ResponseError(code: .notFound, message: "Not found: \(JSONFieldError.excerpt(what))",
                      data: ["field": .string(field), "got": .string(JSONFieldError.excerpt(got))])
    }
}
