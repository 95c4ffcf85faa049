import CatalogDomain
import Jansson
import JSONRPC
import SwitchboardCore
import Testing

/// The catalog's methods through the JSON-RPC layer, in process, on every service; every answer is
/// checked against its schema.
@Suite("Catalog methods", .postgresStores)
struct CatalogMethodsTests {
    @Test("catalog.sectors answers every sector with its brochure count and the locale used", arguments: CatalogBackend.available)
    func sectors(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let result = try await client.result("catalog.sectors", ["locale": "de_DE"])
        #expect(result.objectValue?.keys == ["items", "locale", "state"])
        #expect(result["locale"] == "de-DE")
        let items = try #require(result["items"]?.arrayValue)
        #expect(items.count == 12)
        #expect(items.first?.objectValue?.keys == ["id", "name", "imageUrl", "brochureCount"])
        #expect(items.compactMap { $0["brochureCount"]?.int64Value }.reduce(0, +) == Int64(DemoCatalog.brochureCount))
        let host = try await client.result("catalog.sectors")
        #expect(host["locale"]?.stringValue?.isEmpty == false)
    }

    @Test("an unknown or malformed locale is -32602 naming locale",
          arguments: ["xx-YY", "garbage!!", "", "de-DE-x-private", "de-QQ", "tlh", "de-Abcd", "de-u-co-nonsense", "de-u-ca-gregory",
                      String(repeating: "a", count: 65)])
    func badLocale(locale: String) async throws {
        let error = try await CatalogBackend.memory.client().error("catalog.sectors", ["locale": .string(locale)])
        #expect(error["code"] == -32602)
        #expect(error["data"]?["field"] == "locale")
        if ["de-DE-x-private", "de-u-ca-gregory"].contains(locale) {
            // Valid BCP 47, with parts collation does not use: the error says which parts are read.
            #expect(error["data"]?["expected"]?.stringValue?.contains("no other extensions, variants or private use") == true, "\(error)")
        }
    }

    @Test("catalog.brochures pages a sector with nextCursor, then null; cursors belong to their list", arguments: CatalogBackend.available)
    func brochurePages(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let sector = try #require(try await client.result("catalog.sectors", ["locale": "en"])["items"]?.arrayValue?.first)
        let sectorId = try #require(sector["id"])
        var cursor: JSONValue = .null
        var ids: [Int64] = []
        repeat {
            var params: JSONObject = ["sectorId": sectorId, "limit": 3]
            if cursor != .null { params["cursor"] = cursor }
            let page = try await client.result("catalog.brochures", .object(params))
            #expect(page.objectValue?.keys == ["items", "nextCursor", "hasMore", "state"])
            ids += try #require(page["items"]?.arrayValue).compactMap { $0["id"]?.int64Value }
            cursor = try #require(page["nextCursor"])
            #expect((cursor == .null) == (page["hasMore"] == false))
        } while cursor != .null
        #expect(ids.count == Int(sector["brochureCount"]?.int64Value ?? -1) && ids == ids.sorted())
        let first = try await client.result("catalog.brochures", ["limit": 2])
        let foreign = try await client.error("catalog.brochures", ["sectorId": sectorId, "cursor": try #require(first["nextCursor"])])
        #expect(foreign["code"] == -32602 && foreign["data"]?["field"] == "cursor")
    }

    @Test("catalog.brochures refuses a negative sectorId (-32602) and an unknown one (-32004), naming sectorId",
          arguments: CatalogBackend.available)
    func badSector(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let negative = try await client.error("catalog.brochures", ["sectorId": -1])
        #expect(negative["code"] == -32602 && negative["data"]?["field"] == "sectorId")
        let unknown = try await client.error("catalog.brochures", ["sectorId": 404])
        #expect(unknown["code"] == -32004 && unknown["data"]?["field"] == "sectorId")
        for cursor in ["garbage", "", Cursor(list: "catalog/brochures/all", sortKey: "", id: "-5").encoded,
                       Cursor(list: "catalog/brochures/all", sortKey: "x", id: "5").encoded] {
            let error = try await client.error("catalog.brochures", ["cursor": .string(cursor)])
            #expect(error["code"] == -32602 && error["data"]?["field"] == "cursor", "\(cursor)")
        }
        #expect(try await client.error("catalog.brochures", ["limit": 0])["data"]?["field"] == "limit")
        #expect(try await client.error("catalog.brochures", ["sector": 1])["code"] == -32602)
    }

    @Test("catalog.get answers a brochure; -32004 for an unknown id, -32602 for a negative one", arguments: CatalogBackend.available)
    func get(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let brochure = try await client.result("catalog.get", ["id": 1_001])
        #expect(brochure.objectValue?.keys == ["id", "sectorId", "title", "retailerName", "coverUrl"])
        #expect(brochure["id"] == 1_001)
        let missing = try await client.error("catalog.get", ["id": 7])
        #expect(missing["code"] == -32004 && missing["data"]?["field"] == "id")
        let negative = try await client.error("catalog.get", ["id": -7])
        #expect(negative["code"] == -32602 && negative["data"]?["field"] == "id")
    }

    @Test("catalog.search finds a decomposed, upper-case query and pages by cursor", arguments: CatalogBackend.available)
    func search(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let all = try await client.result("catalog.search", ["query": "CRE\u{300}ME", "limit": 500])
        let titles = try #require(all["items"]?.arrayValue).compactMap { $0["title"]?.stringValue }
        #expect(!titles.isEmpty && titles.allSatisfy { $0.hasPrefix("Crème") })
        let first = try await client.result("catalog.search", ["query": "creme", "limit": 1])
        let rest = try await client.result("catalog.search", ["query": "crème", "cursor": try #require(first["nextCursor"]), "limit": 500])
        #expect((first["items"]?.arrayValue ?? []) + (rest["items"]?.arrayValue ?? []) == all["items"]?.arrayValue)
        let other = try await client.error("catalog.search", ["query": "heizol", "cursor": try #require(first["nextCursor"])])
        #expect(other["data"]?["field"] == "cursor")
        let long = try await client.error("catalog.search", ["query": .string(String(repeating: "ä", count: 1_001))])
        #expect(long["data"]?["field"] == "query")
        let many = try await client.error("catalog.search", ["query": .string((1...17).map { "w\($0)" }.joined(separator: " "))])
        #expect(many["code"] == -32602 && many["data"]?["field"] == "query", "\(many)")
    }

    @Test("catalog.changes reports an import's items; a bad state is -32010", arguments: CatalogBackend.available)
    func changes(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let state = try #require(try await client.result("catalog.sectors", ["locale": "en"])["state"])
        let document: JSONValue = ["sectors": [backendSector(1, name: "Neu", brochures: [backendBrochure(5)])]]
        let outcome = try await client.result("catalog.import", ["document": document])
        let changes = try await client.result("catalog.changes", ["sinceState": state])
        #expect(changes["updated"] == ["sector/1"] && changes["created"] == ["brochure/5"])
        #expect(changes["newState"] == outcome["state"])
        #expect(try await client.error("catalog.changes", ["sinceState": "feed-1"])["code"] == -32010)
    }
}
