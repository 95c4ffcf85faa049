/// libpq's `sslmode`, with libpq's meanings (https://www.postgresql.org/docs/current/libpq-ssl.html).
///
/// `allow` (try without TLS, then with it) is refused: postgres-nio has no way to fall back that
/// direction, and a connection that silently differs from what was asked is worse than a clear error.
public enum PostgresSSLMode: String, Sendable, Equatable, CaseIterable {
    /// No TLS.
    case disable
    /// TLS when the server offers it, else plain; the certificate is not checked. libpq's default.
    case prefer
    /// TLS or no connection; the certificate is not checked, unless a root certificate is named or
    /// `~/.postgresql/root.crt` exists: then as `verify-ca` (libpq's rule, kept for compatibility).
    case require
    /// TLS, and the server's certificate must be signed by a trusted CA.
    case verifyCA = "verify-ca"
    /// TLS, a trusted CA, and the certificate must name the host connected to.
    case verifyFull = "verify-full"

    /// The words accepted, for a message.
    static let accepted = "disable, prefer, require, verify-ca or verify-full"

    /// Reads a value of `sslmode` / `PGSSLMODE` (and `ssl=true`, JDBC's spelling that libpq takes as `require`).
    static func parse(_ text: String, from source: String) throws(PostgresSettingsError) -> PostgresSSLMode {
        if let mode = PostgresSSLMode(rawValue: text) { return mode }
        if text == "allow" {
            throw PostgresSettingsError(source, "sslmode=allow is not supported (no fallback from plain to TLS); use disable or prefer")
        }
        throw PostgresSettingsError(source, "sslmode must be \(accepted)")
    }

    /// Whether the server's certificate chain is checked.
    var verifiesChain: Bool { self == .verifyCA || self == .verifyFull }
}
