import PostgresNIO
import PostgresTesting
@testable import SwitchboardPostgres
import Testing

/// sslmode against the test server, whose certificate (signed by the CA scripts/pg-cluster made) names
/// `localhost` only.
@Suite("PostgreSQL: TLS", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresTLSTests {
    static func url(host: String, _ query: String) -> String {
        "postgres://switchboard:\(TestPostgres.password)@\(host):\(TestPostgres.port)/postgres?\(query)"
    }

    /// Whether the session is encrypted, as the server sees it.
    static func usesTLS(_ settings: PostgresSettings) async throws -> Bool {
        let connection = try await TestPostgres.connect(settings)
        var answers: [Bool] = []
        let rows = try await connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: TestPostgres.logger)
        for try await ssl in rows.decode(Bool.self) { answers.append(ssl) }
        try await connection.close()
        return answers == [true]
    }

    static func refusal(_ url: String) async throws -> String {
        await TestPostgres.openFailure(try TestPostgres.settings(url: url))?.description ?? ""
    }

    @Test("verify-full accepts the name the certificate carries, through the pool too")
    func verifyFullAcceptsTheRightName() async throws {
        let settings = try TestPostgres.settings(url: Self.url(host: "localhost", "sslmode=verify-full&sslrootcert=\(TestPostgres.certificateAuthority)"))
        #expect(try await Self.usesTLS(settings))
        let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
        let rows = try await store.client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: TestPostgres.logger)
        for try await ssl in rows.decode(Bool.self) { #expect(ssl) }
        await store.close()
    }

    @Test("verify-full refuses a name the certificate does not carry, with a clear error naming the server")
    func verifyFullRefusesAWrongName() async throws {
        // 127.0.0.1 is not in the certificate (it names localhost only).
        let byAddress = try await Self.refusal(Self.url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(TestPostgres.certificateAuthority)"))
        #expect(byAddress.contains("127.0.0.1:\(TestPostgres.port)"), "\(byAddress)")
        #expect(byAddress.contains("certificate does not name"), "\(byAddress)")
        #expect(!byAddress.contains(TestPostgres.password))
        // libpq's hostaddr: connect to 127.0.0.1 but expect the name wrong.example.
        let byName = try await Self.refusal(Self.url(host: "wrong.example", "hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=\(TestPostgres.certificateAuthority)"))
        #expect(byName.contains("wrong.example"), "\(byName)")
        #expect(byName.contains("certificate does not name"), "\(byName)")
        // The same address with the right name passes.
        let right = try TestPostgres.settings(url: Self.url(host: "localhost", "hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=\(TestPostgres.certificateAuthority)"))
        #expect(try await Self.usesTLS(right))
    }

    @Test("verify-ca checks the chain, not the name; a CA that did not sign the certificate is refused")
    func verifyCA() async throws {
        let settings = try TestPostgres.settings(url: Self.url(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(TestPostgres.certificateAuthority)"))
        #expect(try await Self.usesTLS(settings))
        // The system's CAs did not sign the test CA.
        let untrusted = try await Self.refusal(Self.url(host: "localhost", "sslmode=verify-full&sslrootcert=system"))
        #expect(untrusted.contains("TLS handshake failed"), "\(untrusted)")
    }

    @Test("disable, prefer and require: plain, encrypted when offered, encrypted without a certificate check")
    func otherModes() async throws {
        #expect(try await Self.usesTLS(TestPostgres.settings(url: Self.url(host: "127.0.0.1", "sslmode=disable"))) == false)
        #expect(try await Self.usesTLS(TestPostgres.settings(url: Self.url(host: "127.0.0.1", "sslmode=prefer"))))
        #expect(try await Self.usesTLS(TestPostgres.settings(url: Self.url(host: "127.0.0.1", "sslmode=require"))))
    }
}
