/// Why connection settings could not be resolved: which part was wrong (`URL`, `port`, `PGPORT`,
/// `sslrootcert`, …) and why.
///
/// - Important: a message never quotes the URL or a value from it (a mistyped URL may put the password
///   where the port should be); it names the part and what was expected. Parameter names are quoted,
///   cut to 40 characters.
public struct PostgresSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The part that was wrong: `URL`, a URL parameter's name, or an environment variable's.
    public var part: String
    public var reason: String

    init(_ part: String, _ reason: String) {
        self.part = part
        self.reason = reason
    }

    public var description: String { "PostgreSQL settings: \(part): \(reason)" }

    /// A name from the input as a message shows it: at most 40 characters, control characters escaped.
    static func quoted(_ name: Substring) -> String {
        var shown = ""
        for scalar in name.unicodeScalars.prefix(40) {
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "'\(shown)\(name.unicodeScalars.count > 40 ? "…" : "")'"
    }
}
