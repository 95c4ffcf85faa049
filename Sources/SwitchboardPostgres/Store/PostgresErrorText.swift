#if canImport(Glibc)
import Glibc
#endif
import PostgresNIO

/// Turns what postgres-nio, SwiftNIO and NIOSSL throw into one sentence a person can act on.
///
/// PSQLError's own description is deliberately vague, and its debug description quotes the query and
/// its binds; neither is shown. The server's message is (it never holds the password).
enum PostgresErrorText {
    static func cause(of error: any Error) -> String {
        switch error {
        case let error as PSQLError:
            return cause(of: error)
        case let error as NIOConnectionError:
            // Every address tried failed (IPv4 and IPv6 for a name): the first failure says why.
            if let failure = error.connectionErrors.first { return cause(of: failure.error) }
            if let error = error.dnsAAAAError ?? error.dnsAError { return "the host name cannot be resolved (\(error))" }
            return "no address to connect to"
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (is the server running and listening there?)"
            case ENOENT: return "no such socket (is the server running, with its socket in that folder?)"
            case EACCES: return "permission denied"
            default: return String(cString: strerror(error.errnoCode))
            }
        case let error as ChannelError:
            if case .connectTimeout(let amount) = error { return "no connection within \(amount.nanoseconds / 1_000_000_000) s (connect_timeout)" }
            return "\(error)"
        case let error as SocketAddressError:
            if case .unknown = error { return "the host name cannot be resolved" }
            return "\(error)"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "the server's certificate does not name the host connected to (sslmode=verify-full): \(error)"
        case let error as NIOSSLError:
            return "the TLS handshake failed: \(error)"
        default:
            return "\(error)"
        }
    }

    private static func cause(of error: PSQLError) -> String {
        switch error.code {
        case .server:
            let message = error.serverInfo?[.message] ?? "an error"
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "the server said: \(message)\(state)"
        case .connectionError, .failedToAddSSLHandler:
            return error.underlying.map { cause(of: $0) } ?? "the connection failed"
        case .sslUnsupported:
            return "the server does not offer TLS, and the sslmode requires it"
        case .authMechanismRequiresPassword:
            return "the server asks for a password and none was given (in the URL, PGPASSWORD or the password file)"
        case .unsupportedAuthMechanism:
            return "the server asks for an authentication method postgres-nio does not support"
        case .saslError:
            return "SCRAM authentication failed"
        case .serverClosedConnection, .uncleanShutdown:
            return error.underlying.map { "the server closed the connection: \(cause(of: $0))" } ?? "the server closed the connection"
        case .clientClosedConnection:
            return "the connection was closed"
        case .poolClosed:
            return "the connection pool is closed"
        case .queryCancelled:
            return "the query was cancelled"
        default:
            return error.underlying.map { "\(error.code): \(cause(of: $0))" } ?? "\(error.code)"
        }
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(of error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}
