#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore

extension PostgresSettings {
    /// Where Debian's libpq looks for the server's socket when no host is given.
    public static let defaultSocketDirectory = "/var/run/postgresql"

    /// Whether `text` is a PostgreSQL URL (`postgres://…` or `postgresql://…`) rather than a file path.
    public static func isPostgresURL(_ text: String) -> Bool { PostgresURL.isPostgresURL(text) }

    /// Resolves settings from `url` (or from the environment alone when `nil`) with this process's
    /// environment, home folder and user, as `psql` would.
    public static func resolve(url: String?) throws(PostgresSettingsError) -> PostgresSettings {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "="), pair.hasPrefix("PG") {
                environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        var home = getenv("HOME").map { String(cString: $0) }
        var systemUser: String?
        if let record = getpwuid(geteuid()) {
            systemUser = String(cString: record.pointee.pw_name)
            if home == nil || home == "" { home = String(cString: record.pointee.pw_dir) }
        }
        return try resolve(url: url, environment: environment, home: home, systemUser: systemUser)
    }

    /// Resolves settings the way libpq does: each part from the URL, else its environment variable, else
    /// libpq's default; the password from the URL, else `PGPASSWORD`, else the password file.
    ///
    /// - Parameters:
    ///   - environment: the `PG*` variables to read (`PGHOST`, `PGHOSTADDR`, `PGPORT`, `PGUSER`, `PGDATABASE`,
    ///     `PGPASSWORD`, `PGPASSFILE`, `PGSSLMODE`, `PGSSLROOTCERT`, `PGCONNECT_TIMEOUT`, `PGAPPNAME`); an empty
    ///     value counts as unset.
    ///   - home: the home folder (`~/.pgpass`, `~/.postgresql/root.crt`).
    ///   - systemUser: the operating-system user name, libpq's default user.
    public static func resolve(url: String?, environment: [String: String], home: String?, systemUser: String?) throws(PostgresSettingsError) -> PostgresSettings {
        var given = PostgresURL()
        if let url { given = try PostgresURL(parsing: url) }
        /// A part from the URL, else from its environment variable, with the name an error should give.
        func value(_ fromURL: String?, _ variable: String, part: String) -> (text: String, part: String)? {
            if let fromURL { return (fromURL, part) }
            if let fromEnvironment = environment[variable], !fromEnvironment.isEmpty { return (fromEnvironment, variable) }
            return nil
        }
        var notes: [String] = []

        var port = 5432
        if let found = value(given.port, "PGPORT", part: "port") {
            guard found.text.utf8.count <= 5, found.text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let number = Int(found.text), (1...65535).contains(number) else {
                throw PostgresSettingsError(found.part, "must be a number from 1 to 65535")
            }
            port = number
        }
        let host = try value(given.host, "PGHOST", part: "host").map { found throws(PostgresSettingsError) in
            try checkedName(found.text, part: found.part)
        }
        let hostAddressFound = value(given.hostAddress, "PGHOSTADDR", part: "hostaddr")
        let hostAddress = try hostAddressFound.map { found throws(PostgresSettingsError) in try checkedName(found.text, part: found.part) }
        if let host, host.contains(",") {
            throw PostgresSettingsError("PGHOST", "several hosts (a,b) are not supported; name one")
        }
        let endpoint: Endpoint
        if let hostAddress {
            // libpq connects to hostaddr; a host name beside it still names the server (certificate, password file).
            var address = in6_addr()
            guard inet_pton(AF_INET, hostAddress, &address) == 1 || inet_pton(AF_INET6, hostAddress, &address) == 1 else {
                throw PostgresSettingsError(hostAddressFound?.part ?? "hostaddr", "must be an IPv4 or IPv6 address")
            }
            endpoint = .tcp(host: host.flatMap { $0.hasPrefix("/") ? nil : $0 } ?? hostAddress, port: port)
        } else if let host, !host.hasPrefix("/") {
            endpoint = .tcp(host: host, port: port)
        } else {
            endpoint = .unixSocket(directory: host ?? defaultSocketDirectory, port: port)
        }
        if case .tcp(let name, _) = endpoint, name.hasPrefix("@") {
            throw PostgresSettingsError("host", "abstract Unix sockets (@name) are not supported")
        }

        guard let user = value(given.user, "PGUSER", part: "user")?.text ?? systemUser, !user.isEmpty else {
            throw PostgresSettingsError("user", "none given: name one in the URL (postgres://USER@…) or in PGUSER")
        }
        let database = value(given.database, "PGDATABASE", part: "dbname")?.text ?? user

        var sslMode = PostgresSSLMode.prefer
        if let found = value(given.sslMode, "PGSSLMODE", part: "sslmode") {
            sslMode = try PostgresSSLMode.parse(found.text, from: found.part)
        }

        var rootCertificate = value(given.sslRootCertificate, "PGSSLROOTCERT", part: "sslrootcert")?.text
        if rootCertificate == nil, let home, access(home + "/.postgresql/root.crt", R_OK) == 0 {
            rootCertificate = home + "/.postgresql/root.crt"
        }
        if let rootCertificate, rootCertificate != "system", access(rootCertificate, R_OK) != 0 {
            // With a password in the URL, a value holding an @ may be the password's rest (a password
            // with an unencoded `@x?sslrootcert=` in it): not quoted then.
            let shown = given.password != nil && rootCertificate.contains("@")
                ? "the file named (not quoted: it may be part of a password; an @ or ? in a password is written %40 or %3F)"
                : PostgresSettingsError.quoted(Substring(rootCertificate))
            throw PostgresSettingsError("sslrootcert", "\(shown) cannot be read")
        }
        if sslMode.verifiesChain, rootCertificate == nil, case .tcp = endpoint {
            throw PostgresSettingsError(
                "sslmode", "\(sslMode.rawValue) needs the CA's certificate: sslrootcert=FILE (or sslrootcert=system), PGSSLROOTCERT, or ~/.postgresql/root.crt")
        }

        var connectTimeout = 10
        if let found = value(given.connectTimeout, "PGCONNECT_TIMEOUT", part: "connect_timeout") {
            guard found.text.utf8.count <= 6, let seconds = Int(found.text), seconds >= 0 else {
                throw PostgresSettingsError(found.part, "must be a whole number of seconds")
            }
            if seconds == 0 {
                notes.append("connect_timeout 0 (wait forever) is taken as 10 s: the host does not hang on an unreachable server")
            } else {
                // libpq takes 1 as 2 s.
                connectTimeout = max(seconds, 2)
            }
        }
        let applicationName = value(given.applicationName, "PGAPPNAME", part: "application_name")?.text ?? "switchboard"

        var password = value(given.password, "PGPASSWORD", part: "password")?.text
        if password == nil, let passFile = value(given.passFile, "PGPASSFILE", part: "passfile")?.text ?? home.map({ $0 + "/.pgpass" }) {
            // libpq matches a socket connection in its default folder (or with no host) as `localhost`.
            let hostKey: String
            switch endpoint {
            case .unixSocket(let directory, _): hostKey = host == nil || directory == defaultSocketDirectory ? "localhost" : directory
            case .tcp(let name, _): hostKey = name
            }
            let lookup = PostgresPassFile.lookup(path: passFile, host: hostKey, port: port, database: database, user: user)
            password = lookup.password
            if let note = lookup.note { notes.append(note) }
        }

        return PostgresSettings(
            endpoint: endpoint, hostAddress: hostAddress, user: user, password: password, database: database, sslMode: sslMode,
            sslRootCertificate: rootCertificate, connectTimeoutSeconds: connectTimeout, applicationName: applicationName, notes: notes)
    }

    /// A host, address or folder: not empty of meaning, no control characters.
    private static func checkedName(_ text: String, part: String) throws(PostgresSettingsError) -> String {
        guard text.utf8.count <= 1024 else { throw PostgresSettingsError(part, "is longer than 1024 bytes") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PostgresSettingsError(part, "holds a control character")
        }
        return text
    }
}
