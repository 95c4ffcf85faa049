import CatalogDomain
import Jansson
import JSONRPC
import SwitchboardCore
import Testing

/// `catalog.sectors` orders sectors as a reader of the locale expects (ICU's collation through
/// Foundation), not by byte and not by lower-casing; expected orders are those of CLDR's tailorings.
/// The order is the method layer's (``SectorOrder``), whatever the storage: the tailorings are checked
/// on memory; names stored and read back, and the demo sectors, on every service.
@Suite("Catalog collation", .postgresStores)
struct CatalogCollationTests {
    /// The names of `catalog.sectors {locale}` over a catalog of sectors named `names`.
    static func order(_ names: [String], locale: String, on backend: CatalogBackend = .memory) async throws -> [String] {
        try await ids(names, locale: locale, on: backend).map { names[$0] }
    }

    /// The same order as positions in `names` (the sectors' ids): Swift's `==` cannot tell `Ö` from `O\u{308}`.
    static func ids(_ names: [String], locale: String, on backend: CatalogBackend = .memory) async throws -> [Int] {
        let catalog = try await backend.make(demo: false)
        _ = try await catalog.importBatch(names.enumerated().map { .sector(SectorEntry(id: Int64($0), name: $1, imageUrl: nil)) })
        let client = try CatalogBackend.client(of: catalog)
        let result = try await client.result("catalog.sectors", ["locale": .string(locale)])
        return try #require(result["items"]?.arrayValue).compactMap { $0["id"]?.int64Value.map { Int($0) } }
    }

    static let brief = ["Zoo", "Öl", "apple", "Äpfel"]

    @Test("German: Ä sorts with A and Ö with O", arguments: ["de", "de-DE", "de_AT", "DE-ch"])
    func german(locale: String) async throws {
        #expect(try await Self.order(Self.brief, locale: locale) == ["Äpfel", "apple", "Öl", "Zoo"])
    }

    @Test("Swedish and Finnish: Å, Ä, Ö are letters after Z", arguments: ["sv", "sv-SE", "fi-FI"])
    func swedish(locale: String) async throws {
        #expect(try await Self.order(Self.brief + ["Åland"], locale: locale) == ["apple", "Zoo", "Åland", "Äpfel", "Öl"])
    }

    @Test("Danish: Ä as Æ and Ö as Ø, then Å, all after Z")
    func danish() async throws {
        #expect(try await Self.order(Self.brief + ["Åland"], locale: "da") == ["apple", "Zoo", "Äpfel", "Öl", "Åland"])
    }

    @Test("English: accents and case decide only between names equal otherwise; digits come first")
    func english() async throws {
        let names = ["Zoo", "apple", "Apple", "éclair", "Eclair", "eclair", "1-Euro-Shops", "10 Pfund", "2 Räder", "Öl", "oil"]
        #expect(try await Self.order(names, locale: "en-US") == ["1-Euro-Shops", "10 Pfund", "2 Räder", "apple", "Apple", "eclair", "Eclair",
                                                                "éclair", "oil", "Öl", "Zoo"])
    }

    @Test("German phone-book order reads Ü as UE: Müller before Muff, unlike the standard order")
    func phonebook() async throws {
        #expect(try await Self.order(["Muff", "Müller"], locale: "de-u-co-phonebk") == ["Müller", "Muff"])
        #expect(try await Self.order(["Muff", "Müller"], locale: "de") == ["Muff", "Müller"])
    }

    @Test("Spanish: ñ is a letter after n")
    func spanish() async throws {
        #expect(try await Self.order(["ñu", "nube", "oso"], locale: "es") == ["nube", "ñu", "oso"])
    }

    @Test("a decomposed name sorts as its composed form; equal names keep id order", arguments: CatalogBackend.available)
    func canonicalEquivalence(backend: CatalogBackend) async throws {
        #expect(try await Self.ids(["Ozon", "O\u{308}l", "Öl", "Oase"], locale: "de", on: backend) == [3, 1, 2, 0])
        #expect(try await Self.ids(["Öl", "O\u{308}l", "Oase"], locale: "de", on: backend) == [2, 0, 1])
    }

    @Test("the demo sectors in German and in Swedish order", arguments: CatalogBackend.available)
    func demoSectors(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        func names(_ locale: String) async throws -> [String] {
            try #require(try await client.result("catalog.sectors", ["locale": .string(locale)])["items"]?.arrayValue).compactMap { $0["name"]?.stringValue }
        }
        let german = try await names("de")
        #expect(german == ["1-Euro-Shops", "Åland-Reisen", "apotheken-Kosmetik", "Ärzte & Apotheken", "Baumarkt & Garten",
                           "eBikes & Fahrräder", "Épicerie fine", "Lebensmittel", "Möbel & Wohnen", "Mode & Schuhe",
                           "Öl & Heizung", "Zoo & Tierbedarf"])
        #expect(try await names("sv") == ["1-Euro-Shops", "apotheken-Kosmetik", "Baumarkt & Garten", "eBikes & Fahrräder", "Épicerie fine",
                                          "Lebensmittel", "Mode & Schuhe", "Möbel & Wohnen", "Zoo & Tierbedarf", "Åland-Reisen",
                                          "Ärzte & Apotheken", "Öl & Heizung"])
        #expect(german != german.sorted(), "byte order would differ")
    }
}
