import CatalogDomain
import DomainMethods
import Jansson
import JSONRPC
import Synchronization
import SwitchboardCore
import Testing

/// The shared suite: every scenario runs against both catalog services, which must answer alike.
@Suite("Catalog services")
struct CatalogServiceTests {
    @Test("every service holds the same demo catalog: a dozen sectors, 300 brochures, counts that add up", arguments: CatalogBackend.available)
    func sameDemoCatalog(backend: CatalogBackend) async throws {
        let memory = try await CatalogBackend.memory.make()
        let sectors = try await memory.sectors().sorted { $0.id < $1.id }
        #expect(sectors.count == 12)
        #expect(sectors.map(\.brochureCount).reduce(0, +) == DemoCatalog.brochureCount)
        #expect(sectors.allSatisfy { $0.brochureCount > 0 && $0.imageUrl != nil })
        let brochures = try await memory.allBrochures(limit: 500)
        #expect(brochures.count == DemoCatalog.brochureCount)
        try await backend.with { catalog async throws in
            #expect(sectors == (try await catalog.sectors()).sorted { $0.id < $1.id })
            #expect(brochures == (try await catalog.allBrochures(limit: 500)))
        }
    }

    @Test("brochures page in id order, by sector or all, each once", arguments: CatalogBackend.available)
    func brochurePages(backend: CatalogBackend) async throws {
        try await backend.with { catalog async throws in
            let all = try await catalog.allBrochures(limit: 7)
            #expect(all.map(\.id) == all.map(\.id).sorted() && Set(all.map(\.id)).count == all.count)
            for sector in try await catalog.sectors() {
                let own = try await catalog.allBrochures(sectorId: sector.id, limit: 4)
                #expect(own.count == sector.brochureCount)
                #expect(own.allSatisfy { $0.sectorId == sector.id })
                #expect(own == all.filter { $0.sectorId == sector.id })
            }
            #expect(try await catalog.brochures(sectorId: 999, after: -1, limit: 10).isEmpty)
        }
    }

    @Test("a brochure or sector is read by id; an unknown id is nil", arguments: CatalogBackend.available)
    func byID(backend: CatalogBackend) async throws {
        try await backend.with { catalog async throws in
            let first = try #require(try await catalog.brochures(sectorId: nil, after: -1, limit: 1).first)
            #expect(try await catalog.brochure(id: first.id) == first)
            #expect(try await catalog.sector(id: first.sectorId)?.id == first.sectorId)
            #expect(try await catalog.brochure(id: 0) == nil)
            #expect(try await catalog.sector(id: 4_000) == nil)
        }
    }

    @Test("search ignores case and accents, in titles and retailer names, composed or not", arguments: CatalogBackend.available)
    func search(backend: CatalogBackend) async throws {
        try await backend.with { catalog async throws in
            let composed = try await catalog.search(CatalogQuery("Crème"), after: -1, limit: 500)
            #expect(!composed.isEmpty && composed.allSatisfy { $0.title.hasPrefix("Crème de la crème") })
            for query in ["creme", "CREME", "cre\u{300}me", "crème de", "CRÈME   la"] {
                #expect(try await catalog.search(CatalogQuery(query), after: -1, limit: 500) == composed, "\(query)")
            }
            let retailer = try await catalog.search(CatalogQuery("epicerie dubois"), after: -1, limit: 500)
            #expect(!retailer.isEmpty && retailer.allSatisfy { $0.retailerName == "Épicerie Dubois" })
            // Every term must match, a phrase keeps its order, and a term never spans title and retailer.
            let both = try await catalog.search(CatalogQuery("crème dubois"), after: -1, limit: 500)
            #expect(!both.isEmpty && both.allSatisfy { $0.retailerName == "Épicerie Dubois" })
            #expect(try await catalog.search(CatalogQuery("creme-la"), after: -1, limit: 500).isEmpty)
            #expect(try await catalog.search(CatalogQuery("!!! ***"), after: -1, limit: 500).isEmpty)
            let paged = try await catalog.search(CatalogQuery("creme"), after: composed[0].id, limit: 500)
            #expect(paged == Array(composed.dropFirst()))
        }
    }

    @Test("an import creates new ids, updates changed ones, leaves the same ones, and logs only real changes",
          arguments: CatalogBackend.available)
    func importMerges(backend: CatalogBackend) async throws {
        let signal = ChangeSignal()
        let posts = Mutex(0)
        signal.listen { posts.withLock { $0 += 1 } }
        try await backend.with(demo: false, signal: signal) { catalog async throws in
            let start = try await catalog.state()
            let sector = SectorEntry(id: 7, name: "Öl", imageUrl: nil)
            let brochure = Brochure(id: 70, sectorId: 7, title: "Heizöl", retailerName: "Wärme", coverUrl: "https://x.example/c.jpg")
            let first = try await catalog.importBatch([.sector(sector), .brochure(brochure)])
            #expect(first.value == CatalogImportCounts(sectors: ImportCounts(created: 1), brochures: ImportCounts(created: 1)))
            #expect(first.state == (try await catalog.state()) && first.state != start)
            #expect(posts.withLock { $0 } == 1)

            let again = try await catalog.importBatch([.sector(sector), .brochure(brochure)])
            #expect(again.value == CatalogImportCounts(sectors: ImportCounts(unchanged: 1), brochures: ImportCounts(unchanged: 1)))
            #expect(again.state == first.state)
            #expect(posts.withLock { $0 } == 1, "nothing written, nothing posted")

            var renamed = brochure
            renamed.title = "Heizöl günstig"
            let update = try await catalog.importBatch([.sector(sector), .brochure(renamed)])
            #expect(update.value.brochures == ImportCounts(updated: 1) && update.value.sectors == ImportCounts(unchanged: 1))
            #expect(try await catalog.brochure(id: 70) == renamed)
            #expect(try await catalog.sector(id: 7) == Sector(id: 7, name: "Öl", imageUrl: nil, brochureCount: 1))
            #expect(try await catalog.search(CatalogQuery("gunstig"), after: -1, limit: 5) == [renamed])
            #expect(try await catalog.search(CatalogQuery("heizol"), after: -1, limit: 5) == [renamed])
            #expect(posts.withLock { $0 } == 2)

            let changes = try await catalog.changes(since: start, limit: 500)
            #expect(changes.created == ["sector/7", "brochure/70"] && changes.updated.isEmpty)
            #expect(changes.newState == update.state && !changes.hasMoreChanges)
            let later = try await catalog.changes(since: first.state, limit: 500)
            #expect(later.created.isEmpty && later.updated == ["brochure/70"])
        }
    }

    @Test("an id given twice in one batch counts once as created, then against its first occurrence", arguments: CatalogBackend.available)
    func twiceInABatch(backend: CatalogBackend) async throws {
        try await backend.with(demo: false) { catalog async throws in
            let sector = SectorEntry(id: 1, name: "A", imageUrl: nil)
            var renamed = sector
            renamed.name = "B"
            let outcome = try await catalog.importBatch([.sector(sector), .sector(sector), .sector(renamed)])
            #expect(outcome.value.sectors == ImportCounts(created: 1, updated: 1, unchanged: 1))
            #expect(try await catalog.sector(id: 1)?.name == "B")
        }
    }

    @Test("a brochure moved to another sector by a re-import counts there", arguments: CatalogBackend.available)
    func moveBrochure(backend: CatalogBackend) async throws {
        try await backend.with(demo: false) { catalog async throws in
            let brochure = Brochure(id: 5, sectorId: 1, title: "t", retailerName: "r", coverUrl: nil)
            _ = try await catalog.importBatch([.sector(SectorEntry(id: 1, name: "A", imageUrl: nil)),
                                               .sector(SectorEntry(id: 2, name: "B", imageUrl: nil)), .brochure(brochure)])
            var moved = brochure
            moved.sectorId = 2
            _ = try await catalog.importBatch([.brochure(moved)])
            #expect(try await catalog.sectors().sorted { $0.id < $1.id }.map(\.brochureCount) == [0, 1])
            #expect(try await catalog.allBrochures(sectorId: 2) == [moved])
        }
    }

    @Test("an unknown, foreign or future state is refused with -32010", arguments: CatalogBackend.available)
    func unknownState(backend: CatalogBackend) async throws {
        try await backend.with { catalog async throws in
            for state in ["nonsense", "mail-0", "catalog-999", ""] {
                do {
                    _ = try await catalog.changes(since: state, limit: 10)
                    Issue.record("state \(state) was accepted")
                } catch let error as ServiceError {
                    #expect(ResponseError(service: error).code == .stateMismatch)
                }
            }
        }
    }

    @Test("catalog.sectors, .brochures and .search answer alike on every backend: the same order for a locale, the same pages and cursors",
          arguments: CatalogBackend.available)
    func sameAnswers(backend: CatalogBackend) async throws {
        /// The answers, without the state (each backend's own position).
        func answers(_ catalog: any CatalogService) async throws -> [JSONValue] {
            let client = MailRPCClient(try MethodRegistry.catalogMethods(catalog).freeze())
            var answers: [JSONValue] = []
            var calls: [(String, JSONObject)] = ["de", "sv-SE", "fr", "de-u-co-phonebk"].map { ("catalog.sectors", ["locale": .string($0)]) }
            calls += [("catalog.brochures", ["sectorId": 1, "limit": 5]), ("catalog.search", ["query": "winter", "limit": 3])]
            for (method, params) in calls {
                var params = params
                while true {
                    var answer = try #require(try await client.result(method, .object(params)).objectValue)
                    answer["state"] = nil
                    answers.append(.object(answer))
                    guard let cursor = answer["nextCursor"], cursor != .null else { break }
                    params["cursor"] = cursor
                }
            }
            return answers
        }
        let expected = try await answers(try await CatalogBackend.memory.make())
        #expect(expected.count > 6)
        #expect(try await backend.with { try await answers($0) } == expected)
    }
}
