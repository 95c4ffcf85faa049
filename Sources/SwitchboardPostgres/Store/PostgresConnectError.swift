import SwitchboardCore

/// The server could not be reached or refused the connection: names the server (`host:port` or the
/// socket's path) and the cause, and shows the settings with the password replaced.
///
/// `cannot connect to PostgreSQL at 127.0.0.1:5433: connection refused (is the server running and listening there?)`
public struct PostgresConnectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `host:port`, or the socket's path.
    public var server: String
    /// The settings as a URL without the password.
    public var settings: String
    public var cause: String

    public init(_ settings: PostgresSettings, cause: String) {
        self.server = settings.serverName
        self.settings = settings.redactedDescription
        self.cause = cause
    }

    public var description: String { "cannot connect to PostgreSQL at \(server): \(cause)" }

    /// The error a domain service throws for it: the storage is unavailable; the "path" is the redacted URL.
    public var serviceError: ServiceError { .storageUnavailable(path: settings, cause: "cannot connect to \(server): \(cause)") }
}
