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

    /// The backends that open in-process at once (``make(demo:signal:)``), for the method and import tests.
    static let local: [CatalogBackend] = [.memory, .sqlite]
    /// Every backend this run can test: PostgreSQL when the test server is there (CI always has it).
    static var available: [CatalogBackend] { local + (TestPostgres.isAvailable ? [.postgres] : []) }

    /// A service holding the demo catalog (or nothing), posting to `signal`; in memory or SQLite.
    func make(demo: Bool = true, signal: ChangeSignal = ChangeSignal()) throws -> any CatalogService {
        switch self {
        case .memory:
            return InMemoryCatalogService(demo: demo, signal: signal)
        case .sqlite:
            let database = try AppDatabase(path: ":memory:", migrations: SQLiteCatalogService.migrations)
            if demo { try database.writer.write { db in try SQLiteCatalogService.seed(db) } }
            return SQLiteCatalogService(database: database, signal: signal)
        case .postgres:
            throw CatalogBackendError.needsScope
        }
    }

    /// Runs `body` with a service holding the demo catalog (or nothing), posting to `signal`; on
    /// PostgreSQL in a fresh database of its own, dropped after.
    func with<T>(demo: Bool = true, signal: ChangeSignal = ChangeSignal(), _ body: (any CatalogService) async throws -> T) async throws -> T {
        guard self == .postgres else { return try await body(try make(demo: demo, signal: signal)) }
        return try await TestPostgres.withFreshStore(migrations: [PostgresCatalogService.migrations]) { store in
            if demo { try await store.write { try await PostgresCatalogService.seed($0, logger: store.logger) } }
            return try await body(PostgresCatalogService(store: store, signal: signal))
        }
    }

    /// An in-process JSON-RPC client of the catalog methods on this backend.
    func client(demo: Bool = true, readRoots: ReadRoots = .empty) throws -> MailRPCClient {
        MailRPCClient(try MethodRegistry.catalogMethods(try make(demo: demo), readRoots: readRoots).freeze())
    }
}

/// A PostgreSQL catalog lives in a database of its own for one test: ``CatalogBackend/with(demo:signal:_:)``.
enum CatalogBackendError: Error {
    case needsScope
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
