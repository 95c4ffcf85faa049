import CatalogDomain
import GRDB
import Jansson
import JSONRPC
import PostgresTesting
import SwitchboardPostgres
import SwitchboardCore
import SwitchboardStorage
import Testing

// Support for the catalog tests: both services built alike, and the methods on an in-process client.

/// The implementations the shared catalog suite runs against.
enum CatalogBackend: String, Sendable, CustomTestStringConvertible {
    case memory, sqlite, postgres

    var testDescription: String { rawValue }

    /// Every backend this run can test: PostgreSQL when the test server is there (CI always has it).
    static var available: [CatalogBackend] { [.memory, .sqlite] + (TestPostgres.isAvailable ? [.postgres] : []) }

    /// A service holding the demo catalog (or nothing), posting to `signal`. On PostgreSQL in a fresh
    /// database of the test case's `.postgresStores` scope, dropped when the case ends; the case is
    /// cancelled (skipped) where no test server runs.
    func make(demo: Bool = true, signal: ChangeSignal = ChangeSignal()) async throws -> any CatalogService {
        switch self {
        case .memory:
            return InMemoryCatalogService(demo: demo, signal: signal)
        case .sqlite:
            let database = try AppDatabase(path: ":memory:", migrations: SQLiteCatalogService.migrations)
            if demo { try await database.writer.write { db in try SQLiteCatalogService.seed(db) } }
            return SQLiteCatalogService(database: database, signal: signal)
        case .postgres:
            guard TestPostgres.isAvailable else { try Test.cancel(Comment(rawValue: TestPostgres.skipReason)) }
            return try await Self.postgres(try await PostgresStores.fresh(migrations: [PostgresCatalogService.migrations]), demo: demo, signal: signal)
        }
    }

    /// Runs `body` with a service holding the demo catalog (or nothing), posting to `signal`; on
    /// PostgreSQL in a fresh database of its own, dropped after (no `.postgresStores` scope needed).
    func with<T>(demo: Bool = true, signal: ChangeSignal = ChangeSignal(), _ body: (any CatalogService) async throws -> T) async throws -> T {
        guard self == .postgres else { return try await body(try await make(demo: demo, signal: signal)) }
        return try await TestPostgres.withFreshStore(migrations: [PostgresCatalogService.migrations]) { store in
            try await body(try await Self.postgres(store, demo: demo, signal: signal))
        }
    }

    /// The PostgreSQL service on `store`, with the demo catalog written first when `demo`.
    private static func postgres(_ store: PostgresStore, demo: Bool, signal: ChangeSignal) async throws -> PostgresCatalogService {
        if demo { try await store.write { try await PostgresCatalogService.seed($0, logger: store.logger) } }
        return PostgresCatalogService(store: store, signal: signal)
    }

    /// An in-process JSON-RPC client of the catalog methods on this backend (``make(demo:signal:)``).
    func client(demo: Bool = true, readRoots: ReadRoots = .empty) async throws -> MailRPCClient {
        try Self.client(of: try await make(demo: demo), readRoots: readRoots)
    }

    /// An in-process JSON-RPC client of the catalog methods of `catalog`.
    static func client(of catalog: any CatalogService, readRoots: ReadRoots = .empty) throws -> MailRPCClient {
        MailRPCClient(try MethodRegistry.catalogMethods(catalog, readRoots: readRoots).freeze())
    }
}

/// A sector of the backend format, as JSON.
func backendSector(_ id: JSONValue, name: String = "Sector", url: JSONValue = .null, brochures: [JSONValue] = []) -> JSONValue {
    ["id": id, "name": .string(name), "url": url, "brochures": .array(brochures)]
}

/// A brochure of the backend format, as JSON.
func backendBrochure(_ id: JSONValue, title: String = "Title", retailer: String = "Retailer", cover: JSONValue = .null) -> JSONValue {
    ["id": id, "title": .string(title), "retailerName": .string(retailer), "coverUrl": cover]
}

extension CatalogService {
    /// Every brochure, walking the pages `limit` at a time.
    func allBrochures(sectorId: Int64? = nil, limit: Int = 7) async throws -> [Brochure] {
        var all: [Brochure] = []
        var after: Int64 = -1
        while true {
            let page = try await brochures(sectorId: sectorId, after: after, limit: limit)
            all += page
            guard page.count == limit, let last = page.last else { return all }
            after = last.id
        }
    }
}
