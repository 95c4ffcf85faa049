import Jansson
import JSONRPC
import Logging
import SwitchboardCore

/// What an import that stores its records a batch at a time (each batch its own transaction) answers
/// when it stops partway, cancelled or failed, after some batches were stored: the error that stopped
/// it, told that those batches stay. Without this a client reads `-32800` as "nothing was done".
public enum BatchedImportStop {
    /// `error` (the cancel's `-32800` when the request was cancelled, unless the batch under way may have
    /// been committed: that storage error says so) with "; the first `done` of `total` `items` were done"
    /// added to its message, and `done`, `total` and the domain's `state` after them added to its
    /// data; it reports writes, so a cancel does not hide it. Importing again does the rest: stored
    /// items are skipped or unchanged. A service failure is logged with its debug id, as the method
    /// layer logs one (it never sees this error as a ``ServiceError``).
    public static func error(_ error: any Error, done: Int, total: Int, items: String, state: String,
                             method: String, logger: Logger) -> ResponseError {
        let service = error as? ServiceError
        var failure: ResponseError
        if let service, case .commitUnknown = service {
            failure = ResponseError(service: service)
        } else if Task.isCancelled || error is CancellationError {
            failure = .cancelled
        } else if let service {
            failure = ResponseError(service: service, method: method, logger: logger)
        } else {
            failure = ResponseError(error)
        }
        failure.message += "; the first \(done) of \(total) \(items) were done (each stored, or skipped as stored already or invalid);"
            + " importing again does the rest"
        var data = failure.data?.objectValue ?? [:]
        data["done"] = .integer(Int64(done))
        data["total"] = .integer(Int64(total))
        data["state"] = .string(state)
        failure.data = .object(data)
        failure.reportsWrites = true
        return failure
    }
}
