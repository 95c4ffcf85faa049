/// The parts a `postgres://` or `postgresql://` URL gives, percent-decoded, each `nil` when absent; libpq's
/// URI form: `postgresql://[user[:password]@][host][:port][/dbname][?param=value&…]`.
///
/// The host may be a name, an address, `[IPv6]`, or a percent-encoded socket directory (`%2Ftmp`);
/// query parameters override the parts before them (`?host=/var/run/postgresql`), as in libpq.
struct PostgresURL: Equatable {
    var host: String?
    var hostAddress: String?
    var port: String?
    var user: String?
    var password: String?
    var database: String?
    var sslMode: String?
    var sslRootCertificate: String?
    var connectTimeout: String?
    var applicationName: String?
    var passFile: String?

    /// The longest URL read: a URL is a line someone typed or configured.
    static let maxLength = 4096

    /// The query parameters read, as libpq names them.
    static let parameters = [
        "host", "hostaddr", "port", "user", "password", "dbname", "sslmode", "ssl", "sslrootcert",
        "connect_timeout", "application_name", "passfile",
    ]

    static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// No part given.
    init() {}

    /// Reads `text`; the error names the part that is wrong and never quotes a value.
    init(parsing text: String) throws(PostgresSettingsError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maxLength else {
            throw PostgresSettingsError("URL", "is longer than \(Self.maxLength) bytes")
        }
        let scheme: [UInt8]
        if text.hasPrefix("postgresql://") {
            scheme = Array("postgresql://".utf8)
        } else if text.hasPrefix("postgres://") {
            scheme = Array("postgres://".utf8)
        } else {
            throw PostgresSettingsError("URL", "must start with postgres:// or postgresql://")
        }
        let rest = bytes[scheme.count...]
        if rest.contains(UInt8(ascii: "#")) {
            throw PostgresSettingsError("URL", "has a fragment (#…); a # in a password or name is written %23")
        }
        let queryStart = rest.firstIndex(of: UInt8(ascii: "?"))
        let beforeQuery = rest[..<(queryStart ?? rest.endIndex)]
        let pathStart = beforeQuery.firstIndex(of: UInt8(ascii: "/"))
        let authority = beforeQuery[..<(pathStart ?? beforeQuery.endIndex)]
        // A / or ? in a password ends the authority early: the rest of the password would be read as a
        // database name, a host or a parameter, and named in an error or the description. An @ is
        // taken after the host only inside the value of a parameter that may hold one
        // (`application_name=me@laptop`).
        let at = UInt8(ascii: "@")
        if beforeQuery[authority.endIndex...].contains(at) || queryStart.map({ Self.hasStrayAt(rest[($0 + 1)...]) }) == true {
            throw PostgresSettingsError(
                "URL", "has an @ after its host: a /, ? or @ in a user name, password or database name is written %2F, %3F or %40")
        }

        var hostPort = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userInfo = authority[..<at]
            hostPort = authority[(at + 1)...]
            if let colon = userInfo.firstIndex(of: UInt8(ascii: ":")) {
                user = try Self.decode(userInfo[..<colon], part: "user")
                password = try Self.decode(userInfo[(colon + 1)...], part: "password")
            } else {
                user = try Self.decode(userInfo, part: "user")
            }
        }
        try readHostPort(hostPort)
        if let pathStart {
            database = try Self.decode(beforeQuery[(pathStart + 1)...], part: "database name")
        }
        if let queryStart {
            try readQuery(rest[(queryStart + 1)...])
        }
    }

    /// The parameters whose value may hold an unencoded `@` (a user `me@server`, a name, a path).
    private static let parametersTakingAt: Set<String> = ["user", "password", "dbname", "application_name", "passfile", "sslrootcert"]

    /// Whether a query holds an `@` outside the value of a parameter that may hold one: then it is
    /// more likely the rest of a password with a `?` in it than a query.
    private static func hasStrayAt(_ query: ArraySlice<UInt8>) -> Bool {
        let at = UInt8(ascii: "@")
        for pair in query.split(separator: UInt8(ascii: "&")) where pair.contains(at) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")),
                  let name = String(validating: pair[..<equals], as: UTF8.self),
                  parametersTakingAt.contains(name) else { return true }
        }
        return false
    }

    private mutating func readHostPort(_ hostPort: ArraySlice<UInt8>) throws(PostgresSettingsError) {
        guard !hostPort.contains(UInt8(ascii: ",")) else {
            throw PostgresSettingsError("host", "several hosts (a,b) are not supported; name one")
        }
        var portPart: ArraySlice<UInt8>?
        if hostPort.first == UInt8(ascii: "[") {
            guard let close = hostPort.firstIndex(of: UInt8(ascii: "]")) else {
                throw PostgresSettingsError("host", "an IPv6 address in [ ] lacks its ]")
            }
            host = try Self.decode(hostPort[(hostPort.startIndex + 1)..<close], part: "host")
            let after = hostPort[(close + 1)...]
            if let first = after.first {
                guard first == UInt8(ascii: ":") else {
                    throw PostgresSettingsError("host", "only :port may follow an IPv6 address in [ ]")
                }
                portPart = after.dropFirst()
            }
        } else if let colon = hostPort.firstIndex(of: UInt8(ascii: ":")) {
            host = try Self.decode(hostPort[..<colon], part: "host")
            portPart = hostPort[(colon + 1)...]
        } else {
            host = try Self.decode(hostPort, part: "host")
        }
        if let portPart { port = try Self.decode(portPart, part: "port") }
    }

    private mutating func readQuery(_ query: ArraySlice<UInt8>) throws(PostgresSettingsError) {
        // After a password, a name may be the rest of it (`password=hun&ter2`): never quoted then.
        var afterPassword = false
        func shown(_ name: String) -> String { afterPassword ? Self.notAName : Self.shown(name) }
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else {
                let name = try Self.decode(pair, part: "a parameter's name") ?? ""
                throw PostgresSettingsError("URL", "parameter \(shown(name)) has no value (name=value)")
            }
            let name = try Self.decode(pair[..<equals], part: "a parameter's name") ?? ""
            let value = try Self.decode(pair[(equals + 1)...], part: name.isEmpty || afterPassword ? "a parameter" : name)
            switch name {
            case "host": host = value
            case "hostaddr": hostAddress = value
            case "port": port = value
            case "user": user = value
            case "password":
                password = value
                afterPassword = true
            case "dbname": database = value
            case "sslmode": sslMode = value
            case "ssl":
                guard value == "true" else { throw PostgresSettingsError("ssl", "only ssl=true (sslmode=require) is read") }
                sslMode = PostgresSSLMode.require.rawValue
            case "sslrootcert": sslRootCertificate = value
            case "connect_timeout": connectTimeout = value
            case "application_name": applicationName = value
            case "passfile": passFile = value
            default:
                throw PostgresSettingsError(
                    "URL", "parameter \(shown(name)) is not one switchboard reads (\(Self.parameters.joined(separator: ", ")))")
            }
        }
    }

    /// A parameter's name for an error: quoted when it looks like one (letters, digits, `_`, at most 40),
    /// else not at all: it may be the rest of a password with a `?` or `&` in it.
    private static func shown(_ name: String) -> String {
        let nameLike = !name.isEmpty && name.utf8.count <= 40
            && name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        return nameLike ? PostgresSettingsError.quoted(Substring(name)) : notAName
    }

    private static let notAName = "(not quoted: it may be part of a password; a ? or & in a password is written %3F or %26)"


    /// Percent-decodes a part: `nil` when empty (libpq treats an empty part as absent); an error for a
    /// broken escape, `%00`, or bytes that are not UTF-8.
    static func decode(_ encoded: ArraySlice<UInt8>, part: String) throws(PostgresSettingsError) -> String? {
        guard !encoded.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let byte = encoded[index]
            if byte == UInt8(ascii: "%") {
                guard encoded.endIndex - index >= 3, let high = hexValue(encoded[index + 1]), let low = hexValue(encoded[index + 2]) else {
                    throw PostgresSettingsError(part, "has a % that is not followed by two hex digits")
                }
                let decoded = high << 4 | low
                guard decoded != 0 else { throw PostgresSettingsError(part, "holds %00 (NUL)") }
                bytes.append(decoded)
                index += 3
            } else {
                guard byte != 0 else { throw PostgresSettingsError(part, "holds NUL") }
                bytes.append(byte)
                index += 1
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PostgresSettingsError(part, "is not UTF-8 once decoded")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
