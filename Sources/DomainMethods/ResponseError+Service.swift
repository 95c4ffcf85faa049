import Jansson
import JSONRPC
import Logging
import SwitchboardCore

extension ResponseError {
    /// `-32004`: the item does not exist; `data` names the field that pointed at it. `what` and `got`
    /// are quoted only in part when long (``JSONFieldError/excerpt(_:limit:)``).
    public static func notFound(_ what: String, field: String, got: String) -> ResponseError {
        ResponseError(code: .notFound, message: "Not found: \(JSONFieldError.excerpt(what))",
                      data: ["field": .string(field), "got": .string(JSONFieldError.excerpt(got))])
    }

    /// JMAP's `cannotCalculateChanges`: the client must reload the list to get a fresh state. A long
    /// state is quoted only in part (``JSONFieldError/excerpt(_:limit:)``).
    public static func cannotCalculateChanges(state: String, reason: String) -> ResponseError {
        let quoted = JSONFieldError.excerpt(state)
        return ResponseError(
            code: .stateMismatch,
            message: "cannotCalculateChanges: state \(quoted) \(reason); reload the list to get a fresh state",
            data: ["type": "cannotCalculateChanges", "sinceState": .string(quoted)]
        )
    }

    /// The error a client sees for a service error. `field` names the param an unknown item came
    /// from (`uids[2]`, `inReplyTo`); without one, `data.field` is `id`.
    public init(service error: ServiceError, field: String? = nil) {
        switch error {
        case .notFound(let kind, let id):
            self = .notFound("\(kind) \(id)", field: field ?? "id", got: id)
        case .cannotCalculateChanges(let state, let reason):
            self = .cannotCalculateChanges(state: state, reason: reason)
        case .storageUnavailable(let path, let cause):
            self.init(code: .storageUnavailable, message: "Storage unavailable: \(ServiceError.show(path)): \(cause)",
                      data: ["path": .string(path), "cause": .string(cause)])
        case .commitUnknown(let path, let cause):
            // The same error as above: its cause says the write may have been committed.
            self.init(code: .storageUnavailable, message: "Storage unavailable: \(ServiceError.show(path)): \(cause)",
                      data: ["path": .string(path), "cause": .string(cause)], reportsWrites: true)
        case .storageReadOnly(let path, let cause):
            self.init(code: .storageReadOnly, message: "Storage is read-only: \(ServiceError.show(path)): \(cause); reads still work",
                      data: ["path": .string(path), "cause": .string(cause)])
        case .rateLimited(let resetAt, let retryAfterMs):
            self.init(code: .rateLimited, message: "Rate limit reached: retry after \(Timestamp.format(resetAt))",
                      data: ["resetAt": .string(Timestamp.format(resetAt)), "retryAfterMs": .integer(retryAfterMs)])
        case .serviceFailure(let debugId, _):
            // The cause stays in the host's log; the client gets the id to quote.
            self.init(code: .serviceFailure, message: "Service failure: quote debug id \(debugId) to support",
                      data: ["debugId": .string(debugId)])
        }
    }

    /// ``init(service:field:)`` for `method`'s answer, a service failure first logged with its debug id
    /// and cause, so the id a client quotes finds the log line. Every place that turns a
    /// ``ServiceError`` into an answer goes through here.
    public init(service error: ServiceError, field: String? = nil, method: String, logger: Logger) {
        if case .serviceFailure(let debugId, let cause) = error {
            logger.error("\(method) failed: service failure debugId=\(debugId): \(cause)")
        }
        self.init(service: error, field: field)
    }
}
