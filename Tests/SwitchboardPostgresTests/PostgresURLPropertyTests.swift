import PropertyBased
@testable import SwitchboardPostgres
import Testing

/// A URL comes from a command line or an environment variable: any text must give settings or a clear
/// refusal, never a trap, and neither the refusal nor the description may show the password.
@Suite("PostgreSQL URLs, any input")
struct PostgresURLPropertyTests {
    /// The password every generated URL carries: if it shows anywhere, a value was quoted.
    static let secret = "Zq9SECRETpw"

    static let pieces = ["postgres://", "postgresql://", "u", ":", "@", "/", "?", "&", "=", "#", "%", "%2F", "%zz", "%00", "[", "]",
                         "::1", "h.example", ",", "5432", "99999", "-1", "host", "port", "sslmode", "verify-full", "allow",
                         "hostaddr", "127.0.0.1", "sslrootcert", "system", "connect_timeout", "0", "é", "\u{0}", "\n", " ", "%E9", "%C3%A9"]

    static let text = zip(Gen.int(in: 0...(pieces.count * 5 / 4)), Gen.uint32(in: 0...0x10FFFF))
        .map { index, value in index < pieces.count ? pieces[index] : (Unicode.Scalar(value).map { String($0) } ?? "\u{FFFD}") }
        .array(of: 0...24)
        .map { $0.joined() }

    static func check(_ url: String) {
        do {
            let settings = try PostgresSettings.resolve(url: url, environment: [:], home: "/nonexistent", systemUser: "osuser")
            #expect(!settings.redactedDescription.contains(secret))
            #expect(!settings.user.isEmpty)
            #expect((1...65535).contains(settings.port))
        } catch {
            #expect(!error.description.contains(secret), "\(error)")
            #expect(!error.part.isEmpty && !error.reason.isEmpty)
        }
    }

    @Test("any text: settings or a refusal naming the part, neither showing the password")
    func anyText() async {
        await propertyCheck(count: 3_000, input: Self.text) { tail in
            Self.check("postgres://u:\(Self.secret)@" + tail)
            Self.check(tail)
        }
    }

    @Test("a password with any text in its middle (an unencoded ?, / or & among it), in the user part or a parameter: neither half shows",
          arguments: ["?", "/", "&", "?x=", "?sslmode=", "&&", "/db?", "?a&b=c", ":", "//", "@x/", "@/", "@x?host=", "@x?",
                     "@x?sslrootcert="])
    func splitPassword(middle: String) async {
        let (head, tail) = ("Zq9SEC", "RETpwX")
        await propertyCheck(count: 300, input: Self.text) { extra in
            // Another @ in the generated text would end the password there, and the rest would be a host, which is
            // shown; the middles with an @ are a password holding @ and a / or ? after it.
            let extra = extra.filter { $0 != "@" }
            for url in ["postgres://u:\(head)\(middle)\(extra)\(tail)@h.example:5432/db", "postgres://u:\(head)\(middle)\(tail)@h.example/db?sslmode=disable",
                        "postgres://u:\(head)\(middle)\(tail)@h.example", "postgres://u:\(head)\(extra)\(middle)\(tail)@h.example",
                        // A password parameter: after an unencoded &, its rest reads as a parameter's name.
                        "postgres://u@h.example/db?password=\(head)\(middle)\(tail)", "postgres://u@h.example/db?password=\(head)\(middle)\(tail)=x",
                        "postgres://u@h.example/db?password=\(head)\(middle)\(tail)=%zz"] {
                do {
                    let settings = try PostgresSettings.resolve(url: url, environment: [:], home: "/nonexistent", systemUser: "osuser")
                    #expect(!settings.redactedDescription.contains(tail) && !settings.redactedDescription.contains(head), "\(url)")
                } catch {
                    let text = String(describing: error)
                    #expect(!text.contains(tail) && !text.contains(head), "\(url): \(text)")
                }
            }
        }
    }

    @Test("an @ in the value of a parameter that may hold one is taken; one in the path, a host or where a password's rest would be is refused naming the encodings")
    func atAfterTheHost() throws {
        let named = try PostgresSettings.resolve(url: "postgres://h/db?application_name=me@laptop&user=me@server",
                                                 environment: [:], home: "/nonexistent", systemUser: "osuser")
        #expect(named.applicationName == "me@laptop")
        #expect(named.user == "me@server")
        for url in ["postgres://u:pa@ss/x@h/db", "postgres://h/my@db", "postgres://h?host=a@b", "postgres://u:pa?ss@h/db", "postgres://h?x@y"] {
            #expect(throws: PostgresSettingsError.self, "\(url)") {
                try PostgresSettings.resolve(url: url, environment: [:], home: "/nonexistent", systemUser: "osuser")
            }
            do {
                _ = try PostgresSettings.resolve(url: url, environment: [:], home: "/nonexistent", systemUser: "osuser")
            } catch {
                #expect(error.reason.contains("%40"), "\(url): \(error)")
            }
        }
    }

    @Test("any text in each part of a URL with a password")
    func anyPart() async {
        await propertyCheck(count: 2_000, input: Self.text, Gen.int(in: 0...4)) { part, position in
            var parts = ["u:\(Self.secret)", "h.example", "5432", "db", "sslmode=disable"]
            parts[position] = parts[position] + part
            Self.check("postgres://\(parts[0])@\(parts[1]):\(parts[2])/\(parts[3])?\(parts[4])")
        }
    }
}
