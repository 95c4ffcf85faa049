import JSONRPC

/// The server error codes of the domains (JSON-RPC reserves -32000...-32099 for them).
extension ErrorCode {
    /// An item the request names does not exist.
    public static let notFound = ErrorCode(rawValue: -32004)
    /// A change-tracking state the host cannot calculate changes from: the client must reload.
    public static let stateMismatch = ErrorCode(rawValue: -32010)
    /// The database cannot be opened or used; `data` is `{path, cause}`. Retried on the next request.
    public static let storageUnavailable = ErrorCode(rawValue: -32050)
    /// The database is read-only (file or folder permissions): reads work, writes get this; `data` is `{path, cause}`.
    public static let storageReadOnly = ErrorCode(rawValue: -32051)
    /// The service's rate limit is reached; `data` is `{resetAt, retryAfterMs}` (RFC 3339, milliseconds).
    public static let rateLimited = ErrorCode(rawValue: -32029)
    /// The service failed; `data.debugId` names the failure in the host's stderr log, for support.
    public static let serviceFailure = ErrorCode(rawValue: -32060)
}
