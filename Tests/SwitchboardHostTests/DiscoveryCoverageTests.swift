import Jansson
import Testing

/// Every method the executable serves is described by its own schema file.
@Suite("Discovery covers every method, against the binary", .offCooperativePool)
struct DiscoveryCoverageTests {
    @Test("rpc.discover describes every method that `switchboard methods` lists, each from its schema file")
    func everyMethodHasItsSchema() throws {
        let listed = try BinaryHarness.run(["methods", "--json"], raw: true)
        let names = try #require(JSONValue(parsing: listed.stdout).arrayValue).compactMap { $0["name"]?.stringValue }
        #expect(names.contains("inbox.list") && names.contains("feed.list") && names.contains("host.ping"))

        let discovered = try BinaryHarness.run(["call", "--backend", "memory", "rpc.discover"], raw: true)
        let document = try JSONValue(parsing: discovered.stdout)
        #expect(document["openrpc"]?.stringValue?.hasPrefix("1.3") == true)
        let methods = try #require(document["methods"]?.arrayValue)
        let byName = Dictionary(uniqueKeysWithValues: methods.compactMap { method in method["name"]?.stringValue.map { ($0, method) } })
        #expect(Set(byName.keys) == Set(names))
        let components = document["components"]?["schemas"]?.objectValue
        for name in names {
            let method = try #require(byName[name], "\(name) is not in rpc.discover")
            // A method without a file gets only its summary (and an open result schema); a file says more.
            if let result = method["result"] {
                #expect(result["schema"] != [:], "\(name) has no schema file")
            } else {
                #expect(method["description"] != nil, "notification \(name) has no schema file")
            }
            #expect(method["params"]?.arrayValue != nil, "\(name): params must be a list")
            for reference in Self.references(in: method) {
                let component = String(reference.dropFirst("#/components/schemas/".count))
                #expect(components?[component] != nil, "\(name) refers to missing \(reference)")
            }
        }
    }

    @Test("every domain method's schema lists the storage errors it can answer: -32050, and -32051 for writes")
    func storageErrorsAreDocumented() throws {
        let discovered = try BinaryHarness.run(["call", "--backend", "memory", "rpc.discover"], raw: true)
        let methods = try #require(JSONValue(parsing: discovered.stdout)["methods"]?.arrayValue)
        let writers: Set = ["mail.login", "mail.send", "mail.markRead", "mail.move", "mail.import",
                            "calendar.create", "calendar.update", "calendar.delete", "calendar.import"]
        // Unsubscribing touches no storage.
        let domains = methods.filter { method in
            ["mail.", "inbox.", "feed.", "calendar."].contains { method["name"]?.stringValue?.hasPrefix($0) == true }
                && method["name"]?.stringValue?.hasSuffix(".unsubscribe") == false
        }
        #expect(domains.count > 10)
        for method in domains {
            let name = method["name"]?.stringValue ?? "?"
            let codes = Set((method["errors"]?.arrayValue ?? []).compactMap { $0["code"]?.int64Value })
            #expect(codes.contains(-32050), "\(name) does not list -32050 (storage unavailable)")
            if writers.contains(name) {
                #expect(codes.contains(-32051), "\(name) writes but does not list -32051 (storage read-only)")
            }
        }
    }

    /// Every `$ref` inside `value`.
    static func references(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            return object.flatMap { key, member in
                key == "$ref" ? (member.stringValue.map { $0.hasPrefix("#/") ? [$0] : [] } ?? []) : references(in: member)
            }
        case .array(let elements):
            return elements.flatMap(references(in:))
        default:
            return []
        }
    }
}
