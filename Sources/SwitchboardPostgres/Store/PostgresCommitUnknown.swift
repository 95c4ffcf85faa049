import SwitchboardCore

/// A write whose session ended after its `COMMIT` was sent: committed or not, the server's answer was
/// lost (``PostgresStore/writeReportingCommit(_:)``). `error` is the `storageUnavailable` to answer
/// when a later read cannot tell.
public struct PostgresCommitUnknown: Error, Sendable {
    public var error: ServiceError
}
