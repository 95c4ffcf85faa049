/// Where and how to reach a PostgreSQL server, resolved the way libpq (and so `psql`) resolves it:
/// the URL's parts first, then `PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE`, `PGPASSWORD`, `PGSSLMODE`, …,
/// then the password file (`PGPASSFILE` or `~/.pgpass`), then libpq's built-in defaults.
///
/// ```swift
/// let settings = try PostgresSettings.resolve(url: "postgres://alice@db.example/team?sslmode=verify-full")
/// print(settings.redactedDescription)   // postgres://alice:***@db.example:5432/team?sslmode=verify-full
/// ```
///
/// - Important: ``password`` is a secret: show ``redactedDescription`` in logs, errors and `host.status`,
///   never the URL as given.
public struct PostgresSettings: Sendable, Equatable {
    /// How the connection is made.
    public enum Endpoint: Sendable, Equatable {
        /// TCP to `host` (a name or an address) on `port`.
        case tcp(host: String, port: Int)
        /// The server's Unix socket in `directory` (the file `directory/.s.PGSQL.PORT`, as libpq names it).
        case unixSocket(directory: String, port: Int)
    }

    public var endpoint: Endpoint
    /// libpq's `hostaddr`: the address connected to over TCP, while the endpoint's host still names the
    /// server for certificate checks and the password file.
    public var hostAddress: String?
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: PostgresSSLMode
    /// The CA certificates a `verify-ca` / `verify-full` connection trusts: a PEM file, or `system` for the
    /// system's store. `nil` when none was named and `~/.postgresql/root.crt` does not exist.
    public var sslRootCertificate: String?
    /// How long one connection attempt may take (libpq's `connect_timeout`; 10 s when not given).
    public var connectTimeoutSeconds: Int
    /// Sent to the server as `application_name` (shown in `pg_stat_activity`).
    public var applicationName: String
    /// What the resolution chose not to use, for the log (a password file others can read, say).
    /// Names no secret.
    public var notes: [String]

    public init(
        endpoint: Endpoint, hostAddress: String? = nil, user: String, password: String?, database: String,
        sslMode: PostgresSSLMode = .prefer, sslRootCertificate: String? = nil, connectTimeoutSeconds: Int = 10,
        applicationName: String = "switchboard", notes: [String] = []
    ) {
        self.endpoint = endpoint
        self.hostAddress = hostAddress
        self.user = user
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.sslRootCertificate = sslRootCertificate
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.applicationName = applicationName
        self.notes = notes
    }

    /// The port, whichever the endpoint.
    public var port: Int {
        switch endpoint {
        case .tcp(_, let port), .unixSocket(_, let port): port
        }
    }

    /// The server as a person names it in a message: `host:port`, `[::1]:port`, or the socket's path.
    public var serverName: String {
        switch endpoint {
        case .tcp(let host, let port):
            let shown = host.contains(":") ? "[\(host)]" : host
            if let hostAddress { return "\(shown):\(port) (address \(hostAddress))" }
            return "\(shown):\(port)"
        case .unixSocket(let directory, let port):
            return Self.socketPath(directory: directory, port: port)
        }
    }

    /// The socket file libpq connects to for a socket directory.
    public static func socketPath(directory: String, port: Int) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
    }

    /// Whether TLS is tried at all: never over a Unix socket (libpq does not either), else unless `disable`.
    public var usesTLS: Bool {
        if case .unixSocket = endpoint { return false }
        return sslMode != .disable
    }
}
