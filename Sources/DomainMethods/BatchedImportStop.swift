import Jansson
import JSONRPC
import SwitchboardCore

/// What an import that stores its records a batch at a time (each batch its own transaction) answers
/// when it stops partway, cancelled or failed, after some batches were stored: the error that stopped
/// it, told that those batches stay. Without this a client reads `-32800` as "nothing was done".
public enum BatchedImportStop {
    /// `error` (the cancel's `-32800` when the request was cancelled) with "; the first `done` of
    /// `total` `items` were stored" added to its message, and `done`, `total` and the domain's
    /// `state` after them added to its data; it reports writes, so a cancel does not hide it.
    /// Importing again stores the rest: stored items are skipped or unchanged.
    public static func error(_ error: any Error, done: Int, total: Int, items: String, state: String) -> ResponseError {
        var failure: ResponseError
        if Task.isCancelled || error is CancellationError {
            failure = .cancelled
        } else if let error = error as? ServiceError {
            failure = ResponseError(service: error)
        } else {
            failure = ResponseError(error)
        }
        failure.message += "; the first \(done) of \(total) \(items) were stored (importing again stores the rest)"
        var data = failure.data?.objectValue ?? [:]
        data["done"] = .integer(Int64(done))
        data["total"] = .integer(Int64(total))
        data["state"] = .string(state)
        failure.data = .object(data)
        failure.reportsWrites = true
        return failure
    }
}
