import CatalogDomain
import Foundation
import Jansson
import JSONRPC
import PostgresNIO
import PropertyBased
import SwitchboardPostgres
import SwitchboardCore
import Testing

/// The catalog's parsers of client input on any input: `locale`, cursors, queries and import
/// documents give an answer or a `-32602` naming the field, never a trap, and every service agrees.
@Suite("Catalog input, any input", .postgresStores)
struct CatalogPropertyTests {
    /// Pieces of locale tags: subtags, separators, extensions, and bytes nearby.
    static let localePieces = ["de", "sv", "en", "zh", "xx", "DE", "SE", "Hant", "Latn", "419", "001", "u", "co", "phonebk", "trad",
                               "x", "ca", "-", "_", "@", "=", " ", ".", "é", "İ", "\u{0}", "1996", "collation"]

    @Test("any locale text is ordered for, or -32602 naming locale; the tag answered reads back as itself")
    func anyLocale() async throws {
        let client = try await CatalogBackend.memory.client()
        await propertyCheck(count: 500, input: PropertyInputs.text(Self.localePieces, count: 0...7)) { text in
            let response = try await client.call("catalog.sectors", ["locale": .string(text)])
            if let error = response["error"] {
                #expect(error["code"] == -32602 && error["data"]?["field"] == "locale", "\(text.debugDescription): \(error)")
                return
            }
            let result = try #require(response["result"])
            let tag = try #require(result["locale"])
            let again = try await client.result("catalog.sectors", ["locale": tag])
            #expect(again["locale"] == tag && again["items"] == result["items"], "\(text.debugDescription)")
        }
    }

    @Test("any cursor text pages on, or is -32602 naming cursor")
    func anyCursor() async throws {
        let client = try await CatalogBackend.memory.client()
        let real = try #require(try await client.result("catalog.brochures", ["limit": 1])["nextCursor"]?.stringValue)
        let pieces = ["Y2F0YWxvZy9", real, String(real.prefix(10)), "A", "_", "-", "=", "\u{1F}", "é", "\u{0}", "MTAw"]
        await propertyCheck(count: 500, input: PropertyInputs.text(pieces, count: 0...4)) { text in
            let response = try await client.call("catalog.brochures", ["cursor": .string(text), "limit": 2])
            if let error = response["error"] {
                #expect(error["code"] == -32602 && error["data"]?["field"] == "cursor", "\(text.debugDescription): \(error)")
            } else {
                #expect(text == real, "only the cursor given out pages on: \(text.debugDescription)")
            }
        }
    }

    @Test("any query gives a page on every service, the same page, composed or decomposed")
    func anyQuery() async throws {
        let memory = try await CatalogBackend.memory.client()
        var others: [MailRPCClient] = []
        for backend in CatalogBackend.available.dropFirst() { others.append(try await backend.client()) }
        let pieces = ["creme", "Crème", "cre\u{300}me", "KW", "1", "Öl", "HEIZÖL", "de", "la", "Épicerie", "|", " ", "\t", "'", "\"", "%",
                      "_", "*", "(", "😀", "日本", "\u{301}", "ß", "İ"]
        await propertyCheck(count: 300, input: PropertyInputs.text(pieces, count: 0...6)) { query in
            let composed = query.precomposedStringWithCanonicalMapping, decomposed = query.decomposedStringWithCanonicalMapping
            guard !query.unicodeScalars.contains("\u{0}") else { return }
            var answers = [try await memory.call("catalog.search", ["query": .string(composed), "limit": 500]),
                           try await memory.call("catalog.search", ["query": .string(decomposed), "limit": 500])]
            for other in others { answers.append(try await other.call("catalog.search", ["query": .string(composed), "limit": 500])) }
            let items = answers.map { $0["result"]?["items"] }
            #expect(items[0] != nil && items.allSatisfy { $0 == items[0] }, "\(query.debugDescription)")
        }
    }

    /// A value of the backend format built from `random`: mostly well-formed, with every kind of fault.
    static func value(_ random: inout SplitMix64, depth: Int) -> JSONValue {
        func id() -> JSONValue? {
            let ids: [JSONValue?] = [nil, .null, -1, 0, 1, 2, 3, 3, .integer(.max), .integer(.min), "3", 2.5, true, [1]]
            return random.pick(ids)
        }
        func text() -> JSONValue? {
            let texts: [JSONValue?] = [nil, .null, "Öl", "", "Äpfel", "apple", 3, ["x"], .string(String(repeating: "é", count: 1_001))]
            return random.pick(texts)
        }
        func object(_ members: [(String, JSONValue?)]) -> JSONValue {
            var object: JSONObject = [:]
            for (name, value) in members { if let value { object[name] = value } }
            if random.chance(10) { object["extra"] = "ignored" }
            return .object(object)
        }
        guard random.chance(90) else { return random.pick(["sector?", 1, .null, [], ["id": 1]] as [JSONValue]) }
        if depth == 0 {
            let brochures: JSONValue? = random.chance(80)
                ? .array((0..<random.next(below: 5)).map { _ in value(&random, depth: 1) })
                : random.pick([nil, .null, "none", ["id": 1]] as [JSONValue?])
            return object([("id", id()), ("name", text()), ("url", text()), ("brochures", brochures)])
        }
        return object([("id", id()), ("title", text()), ("retailerName", text()), ("coverUrl", text())])
    }

    @Test("any document imports on every service alike: errors name real paths, stored ids are the valid ones, a re-import changes nothing")
    func anyDocument() async throws {
        // A fresh, empty catalog per document and service; on PostgreSQL one database for the run, emptied
        // before each document (150 databases made and dropped would take over a minute).
        let postgres = CatalogBackend.available.contains(.postgres)
            ? try await PostgresStores.fresh(migrations: [PostgresCatalogService.migrations]) : nil
        func empty(_ backend: CatalogBackend) async throws -> any CatalogService {
            guard backend == .postgres, let postgres else { return try await backend.make(demo: false) }
            _ = try await postgres.write { try await $0.query("TRUNCATE catalog_brochure, catalog_sector", logger: postgres.logger) }
            return PostgresCatalogService(store: postgres)
        }
        let path = /^\$\.sectors\[(\d+)\](\.brochures(\[(\d+)\])?)?(\.(id|name|url|title|retailerName|coverUrl))?$/
        await propertyCheck(count: 150, input: Gen.int64(in: .min ... .max)) { seed in
            var random = SplitMix64(seed: UInt64(bitPattern: seed))
            let sectors = (0..<random.next(below: 7)).map { _ in Self.value(&random, depth: 0) }
            let document: JSONValue = ["sectors": .array(sectors)]
            var outcomes: [[JSONValue]] = []
            for backend in CatalogBackend.available {
                let client = try CatalogBackend.client(of: try await empty(backend))
                let outcome = try await client.result("catalog.import", ["document": document])
                outcomes.append([outcome["sectors"], outcome["brochures"], outcome["invalid"], outcome["errors"]].map { $0 ?? .null })
                for error in outcome["errors"]?.arrayValue ?? [] {
                    let text = try #require(error["path"]?.stringValue)
                    let match = try #require(text.wholeMatch(of: path), "\(text)")
                    let sector = try #require(Int(match.output.1))
                    #expect(sector < sectors.count, "\(text)")
                    if let brochure = match.output.4.flatMap({ Int($0) }) {
                        #expect(brochure < (sectors[sector]["brochures"]?.arrayValue?.count ?? 0), "\(text)")
                    }
                }
                let stored = try await client.result("catalog.brochures", ["limit": 500])["items"]?.arrayValue ?? []
                #expect(Int64(stored.count) == outcome["brochures"]?["created"]?.int64Value)
                #expect(stored.allSatisfy { ($0["id"]?.int64Value ?? -1) >= 0 })
                let again = try await client.result("catalog.import", ["document": document])
                #expect(again["sectors"]?["created"] == 0 && again["sectors"]?["updated"] == 0)
                #expect(again["brochures"]?["created"] == 0 && again["brochures"]?["updated"] == 0)
                #expect(again["state"] == outcome["state"])
            }
            #expect(outcomes.allSatisfy { $0 == outcomes[0] })
        }
    }
}
