@testable import PluginHost
import PropertyBased
import Testing

/// `resources.read {uri}` routes any client text through `URITemplate.match`: it must never trap, and a
/// match must put the URI back together exactly.
@Suite("URI templates, any input")
struct URITemplatePropertyTests {
    static let templates = ["weather://forecast/{date}", "feed://item/{id}", "mail://inbox", "cal://{year}-{month}/{day}", "x://{a}{b}"]
    static let pieces = ["weather://", "forecast/", "feed://", "item/", "mail://inbox", "cal://", "/", "-", "?", "#", "{", "}",
                         "2026", "11", "42", "a", "é", "\u{0}", "..", "%2F", " ", "x://"]

    /// Random text from the pieces, or now and then any scalar.
    static let uris = zip(Gen.int(in: 0...(pieces.count * 4 / 3)), Gen.uint32(in: 0...0x10FFFF))
        .map { index, value in index < pieces.count ? pieces[index] : (Unicode.Scalar(value).map { String($0) } ?? "\u{FFFD}") }
        .array(of: 0...12)
        .map { $0.joined() }

    @Test("any text matches a template or not, and a match substitutes back to the same URI")
    func matchesRoundTrip() async {
        await propertyCheck(count: 3_000, input: Self.uris) { uri in
            for text in Self.templates {
                let template = URITemplate(text)
                guard let values = template.match(uri) else { continue }
                let rebuilt = template.parts.map { part -> String in
                    switch part {
                    case .literal(let literal): literal
                    case .variable(let name): values[name] ?? "?"
                    }
                }.joined()
                #expect(rebuilt == uri)
                #expect(values.values.allSatisfy { !$0.isEmpty && !$0.contains("/") })
            }
        }
    }
}
