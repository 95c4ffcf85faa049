/// What a domain service throws when a request cannot be served, in domain terms: no JSON field
/// names and no JSON-RPC codes. The method layer (`DomainMethods`) turns each case into the error a
/// client sees, naming the param that pointed at the problem.
public enum ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An item a write refers to does not exist: `kind` is what it is ("message"), `id` its id.
    case notFound(kind: String, id: String)
    /// A change-tracking state changes cannot be calculated from; the client must reload.
    case cannotCalculateChanges(state: String, reason: String)
    /// The storage cannot be used at all: `path` is the database file, `cause` a sentence.
    case storageUnavailable(path: String, cause: String)
    /// The storage went away while a write's commit was under way: the write may have been committed
    /// or not, and only a later read can tell. `cause` says so.
    case commitUnknown(path: String, cause: String)
    /// The storage can be read but not written (a read-only file or folder).
    case storageReadOnly(path: String, cause: String)
    /// The service refuses more requests for now: retry after `retryAfterMs`, at `resetAt` (ms since the epoch).
    case rateLimited(resetAt: Int64, retryAfterMs: Int64)
    /// The service failed; `debugId` names this failure in the host's log, `cause` says what happened
    /// (logged, not shown to the client).
    case serviceFailure(debugId: String, cause: String)

    public var description: String {
        switch self {
        case .notFound(let kind, let id): "\(kind) \(id) not found"
        case .cannotCalculateChanges(let state, let reason): "cannot calculate changes: state \(state) \(reason)"
        case .storageUnavailable(let path, let cause), .commitUnknown(let path, let cause):
            "storage unavailable: \(Self.show(path)): \(cause)"
        case .storageReadOnly(let path, let cause): "storage is read-only: \(Self.show(path)): \(cause)"
        case .rateLimited(let resetAt, _): "rate limit reached until \(Timestamp.format(resetAt))"
        case .serviceFailure(let debugId, let cause): "service failure \(debugId): \(cause)"
        }
    }

    /// Whether this is ``notFound(kind:id:)``: the case a method names a param for (`roomId`, `uids[2]`);
    /// a method lets the others through to the method layer, which logs a service failure's cause.
    public var isNotFound: Bool {
        if case .notFound = self { return true }
        return false
    }

    /// A path as a message shows it: an empty one as `""`.
    public static func show(_ path: String) -> String { path.isEmpty ? "\"\"" : path }
}
