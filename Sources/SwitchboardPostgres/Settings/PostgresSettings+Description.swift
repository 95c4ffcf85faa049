extension PostgresSettings: CustomStringConvertible {
    /// The settings as a URL with the password replaced by `***`: what logs, errors and `host.status` show.
    ///
    /// `postgres://alice:***@db.example:5432/team?sslmode=verify-full`, or for a socket
    /// `postgres://alice@/team?host=%2Fvar%2Frun%2Fpostgresql&port=5432`.
    public var redactedDescription: String {
        var text = "postgres://" + Self.encoded(user)
        if password != nil { text += ":***" }
        text += "@"
        var query: [String] = []
        switch endpoint {
        case .tcp(let host, let port):
            text += (host.contains(":") ? "[\(host)]" : Self.encoded(host)) + ":\(port)"
            if let hostAddress { query.append("hostaddr=" + Self.encoded(hostAddress)) }
            query.append("sslmode=" + sslMode.rawValue)
        case .unixSocket(let directory, let port):
            query.append("host=" + Self.encoded(directory))
            query.append("port=\(port)")
        }
        text += "/" + Self.encoded(database) + "?" + query.joined(separator: "&")
        return text
    }

    public var description: String { redactedDescription }

    /// Percent-encodes all but the unreserved characters of RFC 3986.
    static func encoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(digits[Int(byte >> 4)])
                result.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return result
    }
}

extension PostgresSettings: CustomDebugStringConvertible, CustomReflectable {
    public var debugDescription: String { redactedDescription }

    /// `dump` and the debugger show the redacted URL, not the password.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redactedDescription], displayStyle: .struct) }
}
