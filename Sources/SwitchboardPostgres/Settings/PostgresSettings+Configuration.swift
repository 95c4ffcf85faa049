import PostgresNIO

extension PostgresSettings {
    /// How the server's certificate is checked, after libpq's rule that `require` with a CA certificate
    /// (named, or `~/.postgresql/root.crt`) checks the chain as `verify-ca` does.
    var certificateVerification: CertificateVerification {
        switch sslMode {
        case .disable, .prefer: .none
        case .require: sslRootCertificate == nil ? .none : .noHostnameVerification
        case .verifyCA: .noHostnameVerification
        case .verifyFull: .fullVerification
        }
    }

    /// NIOSSL's client configuration for the sslmode, or `nil` when no TLS is tried.
    var tlsConfiguration: TLSConfiguration? {
        guard usesTLS else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = certificateVerification
        if let root = sslRootCertificate, tls.certificateVerification != .none {
            tls.trustRoots = root == "system" ? .default : .file(root)
        }
        return tls
    }

    /// What postgres-nio connects to: the socket file, or TCP to `hostaddr` when given, else to the host.
    private var connectTarget: (host: String, port: Int)? {
        guard case .tcp(let host, let port) = endpoint else { return nil }
        return (hostAddress ?? host, port)
    }

    /// The name a `verify-full` certificate must carry, and SNI: the host, also when `hostaddr` is connected to.
    private var tlsServerName: String? {
        guard case .tcp(let host, _) = endpoint, hostAddress != nil else { return nil }
        return host
    }

    /// The pool's configuration (``PostgresClient``).
    public var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let (host, port) = connectTarget {
            let tls: PostgresClient.Configuration.TLS = switch (tlsConfiguration, sslMode) {
            case (let tls?, .prefer): .prefer(tls)
            case (let tls?, _): .require(tls)
            case (nil, _): .disable
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        } else {
            configuration = PostgresClient.Configuration(
                unixSocketPath: Self.socketPath(directory: socketDirectory, port: port), username: user, password: password, database: database)
        }
        configuration.options.connectTimeout = .seconds(connectTimeoutSeconds)
        configuration.options.tlsServerName = tlsServerName
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        configuration.options.minimumConnections = Self.minimumPoolConnections
        return configuration
    }

    /// The connections the pool keeps open even when idle. With none, a pool whose every connection
    /// the server ends (a restart, `pg_terminate_backend`) while requests wait for one makes no new
    /// connection until another request arrives: the waiting ones hang for good (postgres-nio's pool
    /// opens a replacement only below this minimum, vapor/postgres-nio#657). With one, the last
    /// connection's end opens a new one (retried with backoff while the server is down), and it serves
    /// the waiting requests.
    public static let minimumPoolConnections = 1

    /// A single connection's configuration (the start-up check, the listener). Building the TLS context
    /// reads the CA file, so this can fail.
    public func connectionConfiguration() throws(PostgresConnectError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let (host, port) = connectTarget {
            var tls = PostgresConnection.Configuration.TLS.disable
            if let tlsConfiguration {
                let context: NIOSSLContext
                do {
                    context = try NIOSSLContext(configuration: tlsConfiguration)
                } catch {
                    throw PostgresConnectError(self, cause: "the TLS set-up failed (the CA certificate \(sslRootCertificate ?? "") cannot be used): \(error)")
                }
                tls = sslMode == .prefer ? .prefer(context) : .require(context)
            }
            configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        } else {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: Self.socketPath(directory: socketDirectory, port: port), username: user, password: password, database: database)
        }
        configuration.options.connectTimeout = .seconds(Int64(connectTimeoutSeconds))
        configuration.options.tlsServerName = tlsServerName
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    private var socketDirectory: String {
        if case .unixSocket(let directory, _) = endpoint { return directory }
        return ""
    }
}
