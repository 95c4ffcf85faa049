import Foundation
import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Testing

/// Reaching the test server every way the settings allow, and the one clear error when it cannot be reached.
@Suite("PostgreSQL: connecting", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresConnectTests {
    static func currentUser(_ settings: PostgresSettings) async throws -> String {
        let connection = try await TestPostgres.connect(settings)
        var users: [String] = []
        for try await user in try await connection.query("SELECT current_user::text", logger: TestPostgres.logger).decode(String.self) {
            users.append(user)
        }
        try await connection.close()
        return users.first ?? ""
    }

    /// A password file in a folder of its own (the caller removes it) with the test server's password for
    /// `switchboard` on 127.0.0.1, of file mode `mode`.
    static func passFile(mode: mode_t) throws -> (folder: String, file: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/pass"
        try "127.0.0.1:\(TestPostgres.port):*:switchboard:\(TestPostgres.password)\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, mode)
        return (folder, file)
    }

    @Test("over TCP with the URL's password, over the Unix socket, and with the password from PGPASSFILE")
    func connectsEveryWay() async throws {
        #expect(try await Self.currentUser(try TestPostgres.settings()) == "switchboard")

        let socket = try TestPostgres.settings(url: "postgres://switchboard@/postgres?host=\(TestPostgres.socketDirectory)&port=\(TestPostgres.port)")
        #expect(try await Self.currentUser(socket) == "switchboard")

        let (folder, file) = try Self.passFile(mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fromFile = try TestPostgres.settings(
            url: "postgres://switchboard@127.0.0.1:\(TestPostgres.port)/postgres?sslmode=disable", environment: ["PGPASSFILE": file])
        #expect(fromFile.password == TestPostgres.password)
        #expect(try await Self.currentUser(fromFile) == "switchboard")

        let fromEnvironment = try TestPostgres.settings(url: nil, environment: [
            "PGHOST": "127.0.0.1", "PGPORT": "\(TestPostgres.port)", "PGUSER": "switchboard", "PGDATABASE": "postgres",
            "PGPASSWORD": TestPostgres.password, "PGSSLMODE": "disable",
        ])
        #expect(try await Self.currentUser(fromEnvironment) == "switchboard")
    }

    @Test("a password file others may read is not used, and the refusal for want of a password says why")
    func passFileOthersMayRead() async throws {
        let (folder, file) = try Self.passFile(mode: 0o644)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let settings = try TestPostgres.settings(
            url: "postgres://switchboard@127.0.0.1:\(TestPostgres.port)/postgres?sslmode=disable&passfile=\(file)")
        #expect(settings.password == nil)
        let text = await TestPostgres.openFailure(settings)?.description ?? ""
        #expect(text.contains("asks for a password"), "\(text)")
        #expect(text.contains("password file \(file) has group or world access"), "\(text)")
        #expect(!text.contains(TestPostgres.password))
    }

    @Test("the server down at start: one error naming host and port, no wait, no password")
    func serverDown() async throws {
        let port = try TestPostgres.closedPort()
        let settings = try TestPostgres.settings(url: "postgres://switchboard:Hush%2Fhush@127.0.0.1:\(port)/postgres?sslmode=disable")
        let error = await TestPostgres.openFailure(settings)
        let text = error?.description ?? ""
        #expect(text.contains("127.0.0.1:\(port)"), "\(text)")
        #expect(text.contains("connection refused"), "\(text)")
        #expect(!text.contains("Hush"))
        #expect(error?.serviceError == .storageUnavailable(
            path: "postgres://switchboard:***@127.0.0.1:\(port)/postgres?sslmode=disable",
            cause: "cannot connect to 127.0.0.1:\(port): connection refused (is the server running and listening there?)"))
    }

    @Test("no server behind a socket folder: the error names the socket")
    func noSocket() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nosock-\(UUID().uuidString)").path
        let settings = try TestPostgres.settings(url: "postgres://switchboard@/postgres?host=\(folder)&port=5999")
        let error = await TestPostgres.openFailure(settings)
        #expect(error?.description.contains("\(folder)/.s.PGSQL.5999") == true, "\(String(describing: error))")
        #expect(error?.description.contains("no such socket") == true, "\(String(describing: error))")
    }

    @Test("a wrong password: the server's refusal, without the password")
    func wrongPassword() async throws {
        let settings = try TestPostgres.settings(url: "postgres://switchboard:Wr0ngPassw0rd@127.0.0.1:\(TestPostgres.port)/postgres?sslmode=disable")
        let error = await TestPostgres.openFailure(settings)
        let text = error?.description ?? ""
        #expect(text.contains("password authentication failed"), "\(text)")
        #expect(text.contains("28P01"), "\(text)")
        #expect(!text.contains("Wr0ng"))
    }

    @Test("a database that does not exist is named by the server's error")
    func missingDatabase() async throws {
        let settings = try TestPostgres.settings(url: "postgres://switchboard:\(TestPostgres.password)@127.0.0.1:\(TestPostgres.port)/no_such_db?sslmode=disable")
        let error = await TestPostgres.openFailure(settings)
        #expect(error?.description.contains("no_such_db") == true, "\(String(describing: error))")
        #expect(error?.description.contains(TestPostgres.password) == false)
    }

    @Test("an opened store's pool answers queries, and closes")
    func poolAnswers() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
            let rows = try await store.client.query("SELECT 40 + 2", logger: TestPostgres.logger)
            var answers: [Int] = []
            for try await value in rows.decode(Int.self) { answers.append(value) }
            #expect(answers == [42])
            await store.close()
        }
    }
}
