import Foundation
import PostgresNIO
@testable import SwitchboardPostgres
import Testing

/// URLs, libpq's environment and password file, resolved as `psql` resolves them (no server needed).
@Suite("PostgreSQL settings: URL, environment, password file")
struct PostgresSettingsTests {
    static func resolve(_ url: String?, _ environment: [String: String] = [:], home: String = "/nonexistent", user: String? = "osuser") throws -> PostgresSettings {
        try PostgresSettings.resolve(url: url, environment: environment, home: home, systemUser: user)
    }

    @Test("a full URL gives every part, percent-decoded, in both schemes")
    func fullURL() throws {
        for scheme in ["postgres", "postgresql"] {
            let settings = try Self.resolve("\(scheme)://al%40ice:p%3Ass%2Fw@db.example:6543/team%20a?sslmode=require&application_name=ed")
            #expect(settings.endpoint == .tcp(host: "db.example", port: 6543))
            #expect(settings.user == "al@ice")
            #expect(settings.password == "p:ss/w")
            #expect(settings.database == "team a")
            #expect(settings.sslMode == .require)
            #expect(settings.applicationName == "ed")
        }
    }

    @Test("an IPv6 address in brackets, with and without a port")
    func ipv6() throws {
        #expect(try Self.resolve("postgres://u@[::1]:5433/d").endpoint == .tcp(host: "::1", port: 5433))
        #expect(try Self.resolve("postgres://u@[fe80::1]/d").endpoint == .tcp(host: "fe80::1", port: 5432))
        #expect(try Self.resolve("postgres://u@[::1]:5433/d").serverName == "[::1]:5433")
    }

    @Test("a Unix socket: a percent-encoded folder as host, or host= in the query, which overrides the host part")
    func unixSocket() throws {
        let encoded = try Self.resolve("postgres://u@%2Fvar%2Frun%2Fpg:5444/d")
        #expect(encoded.endpoint == .unixSocket(directory: "/var/run/pg", port: 5444))
        #expect(encoded.serverName == "/var/run/pg/.s.PGSQL.5444")
        #expect(!encoded.usesTLS)
        let query = try Self.resolve("postgresql:///d?host=/tmp/sock&port=6000&user=q")
        #expect(query.endpoint == .unixSocket(directory: "/tmp/sock", port: 6000))
        #expect(query.user == "q")
        #expect(try Self.resolve("postgres://u@elsewhere/d?host=/tmp/x").endpoint == .unixSocket(directory: "/tmp/x", port: 5432))
    }

    @Test("with no URL and no variables: libpq's defaults (the Debian socket folder, 5432, the system user, a database named after the user, prefer)")
    func defaults() throws {
        let settings = try Self.resolve(nil)
        #expect(settings.endpoint == .unixSocket(directory: "/var/run/postgresql", port: 5432))
        #expect(settings.user == "osuser")
        #expect(settings.database == "osuser")
        #expect(settings.password == nil)
        #expect(settings.sslMode == .prefer)
        #expect(settings.connectTimeoutSeconds == 10)
    }

    @Test("PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGSSLMODE fill what the URL leaves out, and only that")
    func environment() throws {
        let environment = ["PGHOST": "pg.example", "PGPORT": "7000", "PGUSER": "envuser", "PGDATABASE": "envdb",
                           "PGPASSWORD": "envpass", "PGSSLMODE": "disable", "PGAPPNAME": "envapp", "PGCONNECT_TIMEOUT": "3"]
        let fromEnvironment = try Self.resolve(nil, environment)
        #expect(fromEnvironment.endpoint == .tcp(host: "pg.example", port: 7000))
        #expect(fromEnvironment.user == "envuser")
        #expect(fromEnvironment.database == "envdb")
        #expect(fromEnvironment.password == "envpass")
        #expect(fromEnvironment.sslMode == .disable)
        #expect(fromEnvironment.applicationName == "envapp")
        #expect(fromEnvironment.connectTimeoutSeconds == 3)

        let mixed = try Self.resolve("postgres://urluser:urlpass@urlhost/urldb?sslmode=require", environment)
        #expect(mixed.endpoint == .tcp(host: "urlhost", port: 7000))
        #expect(mixed.user == "urluser")
        #expect(mixed.password == "urlpass")
        #expect(mixed.database == "urldb")
        #expect(mixed.sslMode == .require)

        #expect(try Self.resolve(nil, ["PGHOST": "/run/sockets", "PGPORT": "5500"]).endpoint == .unixSocket(directory: "/run/sockets", port: 5500))
        // Empty variables count as unset.
        #expect(try Self.resolve(nil, ["PGHOST": "", "PGUSER": ""]).user == "osuser")
    }

    @Test("the password file: first matching line, * wildcards, escapes; PGPASSFILE; ignored when others may read it")
    func passwordFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/.pgpass"
        try """
        # comment:*:*:*:nope
        other.example:5432:*:alice:wrong
        db.example:5432:team:alice:first\\:pass
        db.example:*:*:alice:second
        *:*:*:bob:bobs:colon:kept
        localhost:5432:*:carol:socketpass
        \\*:5432:*:dave:literalstar

        """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)

        #expect(try Self.resolve("postgres://alice@db.example/team", home: folder).password == "first:pass")
        #expect(try Self.resolve("postgres://alice@db.example:6000/x", home: folder).password == "second")
        #expect(try Self.resolve("postgres://bob@anywhere/x", home: folder).password == "bobs:colon:kept")
        #expect(try Self.resolve("postgres://nobody@db.example/x", home: folder).password == nil)
        // A socket in the default folder, or no host at all, is looked up as localhost.
        #expect(try Self.resolve("postgres://carol@/x", home: folder).password == "socketpass")
        #expect(try Self.resolve("postgres://carol@/x?host=/other/dir", home: folder).password == nil)
        // An escaped star is a star, not a wildcard.
        #expect(try Self.resolve("postgres://dave@db.example/x", home: folder).password == nil)
        #expect(try Self.resolve("postgres://dave@*/x", home: folder).password == "literalstar")
        // The URL's password, then PGPASSWORD, win over the file.
        #expect(try Self.resolve("postgres://alice:given@db.example/team", home: folder).password == "given")
        #expect(try Self.resolve("postgres://alice@db.example/team", ["PGPASSWORD": "env"], home: folder).password == "env")
        // PGPASSFILE names another file.
        #expect(try Self.resolve("postgres://alice@db.example/team", ["PGPASSFILE": file], home: "/nonexistent").password == "first:pass")
        #expect(try Self.resolve("postgres://alice@db.example/team?passfile=\(file)", home: "/nonexistent").password == "first:pass")

        chmod(file, 0o644)
        let readable = try Self.resolve("postgres://alice@db.example/team", home: folder)
        #expect(readable.password == nil)
        #expect(readable.notes.contains { $0.contains("group or world access") })
    }

    @Test("sslmode: each libpq mode maps to its certificate check; require with a CA checks the chain; allow and others are refused")
    func sslModes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgca-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/.postgresql", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ca = folder + "/ca.pem"
        try "not read until a connection is made".write(toFile: ca, atomically: true, encoding: .utf8)

        #expect(try Self.resolve("postgres://u@h/d?sslmode=disable").tlsConfiguration == nil)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=prefer").tlsConfiguration?.certificateVerification == CertificateVerification.none)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=require").tlsConfiguration?.certificateVerification == CertificateVerification.none)
        #expect(try Self.resolve("postgres://u@h/d?ssl=true").sslMode == .require)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=require&sslrootcert=\(ca)").certificateVerification == .noHostnameVerification)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=verify-ca&sslrootcert=\(ca)").certificateVerification == .noHostnameVerification)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=verify-full&sslrootcert=\(ca)").certificateVerification == .fullVerification)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=verify-full&sslrootcert=system").tlsConfiguration?.trustRoots == .default)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=verify-full", ["PGSSLROOTCERT": ca]).sslRootCertificate == ca)
        // ~/.postgresql/root.crt, libpq's default CA file.
        try "x".write(toFile: folder + "/.postgresql/root.crt", atomically: true, encoding: .utf8)
        #expect(try Self.resolve("postgres://u@h/d?sslmode=verify-full", home: folder).sslRootCertificate == folder + "/.postgresql/root.crt")
        #expect(try Self.resolve("postgres://u@h/d?sslmode=require", home: folder).certificateVerification == .noHostnameVerification)

        let missingCA = #expect(throws: PostgresSettingsError.self) { try Self.resolve("postgres://u@h/d?sslmode=verify-full") }
        #expect(missingCA?.description.contains("needs the CA's certificate") == true)
        let allow = #expect(throws: PostgresSettingsError.self) { try Self.resolve("postgres://u@h/d?sslmode=allow") }
        #expect(allow?.description.contains("not supported") == true)
        let bogus = #expect(throws: PostgresSettingsError.self) { try Self.resolve(nil, ["PGSSLMODE": "sometimes"]) }
        #expect(bogus?.part == "PGSSLMODE")
        #expect(throws: PostgresSettingsError.self) { try Self.resolve("postgres://u@h/d?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem") }
    }

    @Test("hostaddr: TCP to the address while the host names the server for the certificate")
    func hostAddress() throws {
        let settings = try Self.resolve("postgres://u@db.example/d?hostaddr=127.0.0.1&sslmode=disable")
        #expect(settings.endpoint == .tcp(host: "db.example", port: 5432))
        #expect(settings.hostAddress == "127.0.0.1")
        #expect(settings.clientConfiguration.host == "127.0.0.1")
        #expect(settings.clientConfiguration.options.tlsServerName == "db.example")
        #expect(throws: PostgresSettingsError.self) { try Self.resolve("postgres://u@h/d?hostaddr=db.example") }
    }

    @Test("the redacted description replaces the password and reads back as the same settings")
    func redacted() throws {
        let settings = try Self.resolve("postgres://alice:Sup3r%2Fsecret@db.example:6543/team?sslmode=require")
        #expect(settings.redactedDescription == "postgres://alice:***@db.example:6543/team?sslmode=require")
        #expect("\(settings)" == settings.redactedDescription)
        #expect(String(reflecting: settings) == settings.redactedDescription)
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains("Sup3r"))
        let socket = try Self.resolve("postgres://bob@/d%20b?host=/run/my%20pg")
        #expect(socket.redactedDescription == "postgres://bob@/d%20b?host=%2Frun%2Fmy%20pg&port=5432")
        var back = try Self.resolve(settings.redactedDescription.replacingOccurrences(of: ":***", with: ":Sup3r%2Fsecret"))
        back.notes = settings.notes
        #expect(back == settings)
    }

    @Test("bad URLs are refused naming the part, never quoting a value", arguments: [
        ("mysql://u@h/d", "URL"), ("postgres://u@h:99999/d", "port"), ("postgres://u@h:12ab/d", "port"),
        ("postgres://u@a,b/d", "host"), ("postgres://u@h/d?x=1", "URL"), ("postgres://u@h/d?sslmode", "URL"),
        ("postgres://u:%zzsecret@h/d", "password"), ("postgres://u@h/d#frag", "URL"), ("postgres://u@[::1/d", "host"),
        ("postgres://u@h/d?connect_timeout=soon", "connect_timeout"), ("postgres://u%00@h/d", "user"),
        ("postgres://u@h/d?ssl=false", "ssl"),
    ])
    func badURLs(url: String, part: String) throws {
        let error = #expect(throws: PostgresSettingsError.self) { try Self.resolve(url) }
        #expect(error?.part == part, "\(url): \(String(describing: error))")
        #expect(error?.description.contains("secret") == false)
    }

    @Test("a port from PGPORT that is not a port names PGPORT")
    func badEnvironmentPort() {
        let error = #expect(throws: PostgresSettingsError.self) { try Self.resolve(nil, ["PGPORT": "x"]) }
        #expect(error?.part == "PGPORT")
    }
}
